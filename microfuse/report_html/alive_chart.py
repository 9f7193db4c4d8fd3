"""Bytes alive per step as bars, with the lower bound marked: the inspect page's memory picture."""

from __future__ import annotations

from dataclasses import dataclass

from .axes import ByteAxis, StepAxis, Tick
from .fmt import count, num
from .timeline import BOTTOM, LEFT, PLOT_H, TOP, Level


@dataclass(frozen=True)
class Bar:
    x: str
    y: str
    w: str
    h: str
    css: str
    tooltip: str


@dataclass(frozen=True)
class AliveChart:
    width: str
    height: str
    plot_x0: str
    plot_x1: str
    plot_y0: str
    plot_y1: str
    bars: tuple[Bar, ...]
    level: Level
    xticks: tuple[Tick, ...]
    yticks: tuple[Tick, ...]
    lower_bound: int
    steps: int


def build(data: dict) -> AliveChart:
    ops = data.get("ops") or []
    alive = [int(op.get("alive_bytes") or 0) for op in ops]
    bound = int(data.get("lower_bound_bytes") or 0)
    peak_step = data.get("lower_bound_step")
    xs = StepAxis.fit(LEFT, len(ops))
    ys = ByteAxis.fit(TOP, PLOT_H * 0.7, max([bound, 1, *alive]))
    bars = []
    for step, (op, value) in enumerate(zip(ops, alive)):
        x0, x1 = xs.x(step) + 1, xs.x(step + 1) - 1
        top = ys.y(value)
        act = op.get("activation") or "NONE"
        label = f"{op.get('op')}" + ("" if act == "NONE" else f"+{act}")
        bars.append(Bar(num(x0), num(top), num(max(x1 - x0, 1)), num(ys.y(0) - top),
                        "bar-peak" if step == peak_step else "bar",
                        f"step {step}: op {op.get('index')} {label}\n{count(value)} bytes alive"))
    bottom = TOP + PLOT_H * 0.7
    y = ys.y(bound)
    return AliveChart(num(LEFT + xs.width + 24), num(bottom + BOTTOM), num(LEFT), num(LEFT + xs.width),
                      num(TOP), num(bottom), tuple(bars),
                      Level(num(y), "level-bound", f"lower bound {count(bound)} B", num(y - 5), bound),
                      tuple(Tick(num(t.pos), t.text) for t in xs.ticks()),
                      tuple(Tick(num(t.pos), t.text) for t in ys.ticks()), bound, len(ops))
