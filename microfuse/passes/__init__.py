"""The pass pipeline: named graph rewrites run in order between reading and planning."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .. import ops as opdefs
from ..errors import UnsupportedError
from ..ir import Graph
from .cost import Catalog, CostModel

Pass = Callable[[Graph], Graph]


@dataclass
class Context:
    """What fusion passes share: the objective (--optimize), the kernel catalog and the arena
    bound they weigh rewrites with (given by the build: a lower.Lowerer of the level and
    plan.peak_bound; see build.pass_context), and the log of their decisions."""

    optimize: str = "balanced"
    catalog: Catalog | None = None
    peak: Callable | None = None  # (graph, scratch, access) -> the planner's arena bound in graph order
    log: list = field(default_factory=list)  # pattern.Decision, in the order they were made
    steps: Callable | None = None  # (graph, scratch, access) -> the bound per step (plan.step_bounds)
    cost: CostModel | None = field(default=None, init=False)

    def __post_init__(self):
        if self.catalog is not None:
            self.cost = CostModel(self.catalog, self.peak)

    def decisions(self) -> list[dict]:
        return [d.as_dict() for d in self.log]


@dataclass(frozen=True)
class NamedPass:
    name: str
    run: Callable  # (graph) -> graph, or (graph, context) -> graph for fusion passes
    fusion: bool = False  # switched off by --no-fuse; gets the Context


def pipeline() -> list[NamedPass]:
    """Every pass, in order (imported late so a pass module may import the IR freely)."""
    from .bn_fold import bn_fold
    from .cascade import cascade
    from .concat import eliminate_concat
    from .dilate import dilate
    from .fold import fold_constants
    from .fuse import fuse
    from .horizontal import horizontal
    from .movement_alias import alias_identity_copies
    from .pad_fold import pad_fold
    from .pattern import Rewriter
    from .pool_fuse import pool_fuse
    from .pool_rows import pool_rows
    from .state import assign_into_state

    def fusion(fn):
        return lambda graph, ctx: fn(graph, Rewriter(graph, ctx.optimize, ctx.log, ctx.cost))

    return [NamedPass("fold", fold_constants),
            NamedPass("movement_alias", alias_identity_copies),
            NamedPass("bn_fold", fusion(bn_fold), fusion=True),
            NamedPass("pad_fold", fusion(pad_fold), fusion=True),
            NamedPass("dilate", fusion(dilate), fusion=True),
            NamedPass("fuse", fusion(fuse), fusion=True),
            NamedPass("horizontal", fusion(horizontal), fusion=True),
            NamedPass("concat", fusion(eliminate_concat), fusion=True),
            # late: a conv fused with its pool (CONV_POOL, CONV_GAP) is no longer a conv
            NamedPass("pool_rows", fusion(pool_rows), fusion=True),
            NamedPass("pool_fuse", fusion(pool_fuse), fusion=True),
            # after every other fusion: a cascade runs the fused ops band by band
            NamedPass("cascade", cascade, fusion=True),
            # last: a producer writing into state is no longer an arena op the rewrites above know
            NamedPass("state", assign_into_state)]


def names(without: tuple[str, ...] = ()) -> list[str]:
    """The pipeline's pass names in order, less `without` (e.g. a build without cascades:
    `Options(passes=tuple(names(without=("cascade",))))`)."""
    return [p.name for p in pipeline() if p.name not in without]


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
            opdefs.verify(graph)
    return graph
