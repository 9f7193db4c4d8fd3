"""The pass pipeline: named graph rewrites run in order between reading and planning."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import UnsupportedError
from ..ir import Graph

Pass = Callable[[Graph], Graph]


@dataclass(frozen=True)
class NamedPass:
    name: str
    run: Pass
    fusion: bool = False  # switched off by --no-fuse


def pipeline() -> list[NamedPass]:
    """Every pass, in order (imported late so a pass module may import the IR freely)."""
    from .fold import fold_constants

    return [NamedPass("fold", fold_constants)]


def run_passes(graph: Graph, only: list[str] | None = None, fuse: bool = True,
               verify: bool = False) -> Graph:
    """Run the pipeline (or the named subset), optionally checking the IR after each pass."""
    passes = pipeline()
    names = [p.name for p in passes]
    for name in only or []:
        if name not in names:
            raise UnsupportedError(f"unknown pass '{name}' (passes: {', '.join(names)})")
    for p in passes:
        if (only is not None and p.name not in only) or (p.fusion and not fuse):
            continue
        graph = p.run(graph)
        if verify:
            graph.verify()
    return graph
