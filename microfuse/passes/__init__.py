"""The pass pipeline: named graph rewrites run in order between reading and planning."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..errors import UnsupportedError
from ..ir import Graph

Pass = Callable[[Graph], Graph]


@dataclass
class Context:
    """What fusion passes share: the objective (--optimize) and the log of their decisions."""

    optimize: str = "balanced"
    log: list = field(default_factory=list)  # pattern.Decision, in the order they were made

    def decisions(self) -> list[dict]:
        return [d.as_dict() for d in self.log]


@dataclass(frozen=True)
class NamedPass:
    name: str
    run: Callable  # (graph) -> graph, or (graph, context) -> graph for fusion passes
    fusion: bool = False  # switched off by --no-fuse; gets the Context


def pipeline() -> list[NamedPass]:
    """Every pass, in order (imported late so a pass module may import the IR freely)."""
    from .fold import fold_constants
    from .fuse import fuse
    from .pattern import Rewriter

    def fusion(fn):
        return lambda graph, ctx: fn(graph, Rewriter(graph, ctx.optimize, ctx.log))

    return [NamedPass("fold", fold_constants),
            NamedPass("fuse", fusion(fuse), fusion=True)]


def run_passes(graph: Graph, only: list[str] | None = None, fuse: bool = True,
               verify: bool = False, context: Context | None = None) -> Graph:
    """Run the pipeline (or the named subset), optionally checking the IR after each pass."""
    passes = pipeline()
    names = [p.name for p in passes]
    for name in only or []:
        if name not in names:
            raise UnsupportedError(f"unknown pass '{name}' (passes: {', '.join(names)})")
    ctx = context or Context()
    for p in passes:
        if (only is not None and p.name not in only) or (p.fusion and not fuse):
            continue
        graph = p.run(graph, ctx) if p.fusion else p.run(graph)
        if verify:
            graph.verify()
    return graph
