"""The one door from the test suites into lowering, the passes, planning and building.

Every suite lowers, optimizes, plans and builds through these few functions, so a change of the
stages' calling conventions (e.g. the optimization level becoming an argument of the lowering
was the `optimizing()` context before the kernel catalog) is fixed here, once."""

from __future__ import annotations

from pathlib import Path

from .. import pipeline as _build
from .. import lower as _lower
from .. import passes as _passes
from .. import plan as _plan
from ..pipeline import Compiled, Options
from ..ir import Graph, Op
from ..lower import Call

SIZE, BALANCED = "size", "balanced"  # the reference kernels; the default build's level


def lower(op: Op, level: str = SIZE) -> Call:
    """The kernel call of one op at optimization `level` (the reference kernels by default)."""
    return _lower.lower(op, level)


def optimize(graph: Graph, level: str = SIZE, verify: bool = False) -> tuple[Graph, list[dict]]:
    """The graph after the build's passes at `level`, and the fusion decisions they logged."""
    context = _build.pass_context(level)
    return _passes.run_passes(graph, verify=verify, context=context), context.decisions()


def lowered(graph: Graph, level: str = BALANCED, core: str | None = None) -> list[Call]:
    """The calls a build for `core` (None: any) makes of `graph` at `level` (the passes, then a
    kernel per op), without planning the graph's arena."""
    lowerer = _lower.Lowerer(level, core=core)
    optimized = _passes.run_passes(graph, context=_build.pass_context(level, lowerer))
    return [lowerer.lower(op) for op in optimized.ops]


def compile_model(model: Graph | bytes | str | Path, options: Options = Options()) -> Compiled:
    """The whole pipeline short of writing files: passes, lowering, plan."""
    return _build.compile_model(model, options)


def build(model: Graph | bytes | str | Path, out: Path, options: Options = Options()) -> Compiled:
    """The whole pipeline, writing the C library to `out`."""
    return _build.build(model, out, options)


def plan(graph: Graph, **kwargs):
    """The memory plan of an (unlowered) graph."""
    return _plan.plan(graph, **kwargs)
