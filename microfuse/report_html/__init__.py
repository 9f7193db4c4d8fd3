"""report.html and `inspect --html`: one self-contained page (inline CSS and SVG, no scripts, no network)."""

from __future__ import annotations

from pathlib import Path

import jinja2

from . import alive_chart, graphs, timeline, views
from .fmt import count, human_bytes, num, si

_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,  # everything from the model (tensor and op names) is text, never markup
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
_ENV.filters.update(count=count, human_bytes=human_bytes, num=num, si=si)


def render(report: dict) -> str:
    """The build report page for a report.json dict (see microfuse/report.py for its fields)."""
    return _ENV.get_template("report.html.j2").render(
        head=views.head(report),
        stats=views.stats(report),
        io_rows=views.io_rows(report),
        bars=views.board_bars(report),
        timeline=timeline.build(report),
        savings=views.savings(report),
        source_graph=graphs.source_graph(report),
        fused_graph=graphs.fused_graph(report),
        calls=views.call_rows(report),
        share_basis=views.share_basis(report),
        decisions=views.decisions(report),
        cascades=views.cascades(report),
        footprint=report.get("footprint") or [],
        accuracy=views.accuracy(report),
        latency_note=views.latency_note(report),
        intensity=views.model_intensity(report),
        notes=[str(n) for n in report.get("notes") or []],
    )


def render_inspect(data: dict) -> str:
    """The page for `microfuse inspect --html`: a model alone, before building (the inspect JSON)."""
    ops = data.get("ops") or []
    step = data.get("lower_bound_step")
    where = ""
    if isinstance(step, int) and 0 <= step < len(ops):
        act = ops[step].get("activation") or "NONE"
        where = f"at step {step}, op {ops[step].get('index')} {ops[step].get('op')}" + (
            "" if act == "NONE" else f"+{act}")
    stats = [
        views.Stat("ops", count(len(ops)), "in execution order"),
        views.Stat("compute", f"{si(data.get('macs'))} MACs", f"{count(data.get('macs'))} multiply-accumulates"),
        views.Stat("activation lower bound", human_bytes(data.get("lower_bound_bytes")),
                   f"{count(data.get('lower_bound_bytes'))} B {where}".strip(), "accent"),
        views.Stat("weights (flash)", human_bytes(data.get("weights_bytes")),
                   f"{count(data.get('weights_bytes'))} B of constants"),
    ]
    return _ENV.get_template("inspect.html.j2").render(
        model=str(data.get("model") or "model"), stats=stats, graph=graphs.inspect_graph(data),
        chart=alive_chart.build(data), ops=views.op_rows(data))
