"""Cascades: runs of windowed ops (conv, depthwise, pool with their fused epilogues, residual blocks
with the skip and the shortcut conv) fused into one CASCADE (ops/cascade.py) executed band by band,
so their intermediates live as rings of rows, not whole tensors.

Where a cascade starts and ends is the cost model's call, not a pattern: while some run of
consecutive ops, made one cascade, lowers the planner's arena bound, the run that lowers it most
is a candidate; it is taken if its extra instructions (ring moves, more calls) stay within the
objective's budget: `size` any, `balanced` BUDGET of the model's instructions in all, `speed` none.
Its bands take the shape of SHAPES that costs the fewest instructions without raising the arena
bound (the rings grow with the bands: only room below the model's peak is spent).
"""

from __future__ import annotations

import dataclasses

from .. import views
from ..ir import DType, Graph, Op, short_name
from ..ops import cascade as casc
from .cost import call_instructions
from .pattern import Decision, source_indices

RULE = "cascade"
BUDGET = 0.05  # balanced: the cascades together may cost this share of the model's instructions
MAX_OPS = 12  # longest run tried
MAX_REFUSED = 3  # runs over the budget weighed before the pass gives up (the next best cost alike)
BUDGETS = {"size": float("inf"), "balanced": BUDGET, "speed": 0.0}
# The band shapes a cascade may take (ops/cascade.py Shape: output rows of its last member a step,
# most rows of a producer's band, 0: all the step needs), the first the smallest rings. Larger bands
# make fewer kernel calls (each call's set-up: a depthwise call's tap tables, a pointwise call's
# run) and fewer ring moves, for rings of more rows. The pass takes the one with the fewest cost
# model instructions (calls, moved bytes) among those that do not raise the arena bound. Measured
# on VWW's 48x48 cascade (depthwise, pointwise, depthwise stride 2; 1.73 M est. M4 cycles as
# (1, 1)): (2, 2) -32 K, (3, 3) -43 K, (2, 0) -44 K, (4, 4) -49 K, (3, 0) -52 K; with the
# pointwise conv's input ring inside its output ring (ops/cascade.py _nest: 8,848 B of rings
# for 5 rows a step, 8,064 B as (3, 0) had apart) (4, 0) -55.5 K and (5, 0) -57.3 K, which it
# takes; (6, 0) and larger do not fit under the model's peak (one band for all 48 rows would
# save only 12 K more than (3, 0): the bands' own cost is small). KWS's and IC's cascades are at
# their models' peaks: they keep (1, 1).
SHAPES = tuple(casc.Shape(r, m) for r, m in ((1, 1), (2, 2), (2, 0), (3, 3), (3, 0), (4, 4), (4, 0), (5, 5),
                                             (5, 0), (6, 6), (6, 0), (8, 8), (8, 0)))


def member_problem(op: Op) -> str | None:
    """Why op cannot run inside a cascade, or None."""
    if op.kind not in casc.WINDOWED:
        return f"{op.kind} is not a windowed op"
    x, y = op.inputs[0], op.outputs[0]
    if x.dtype not in (DType.INT8, DType.FLOAT32) or len(x.shape) != 4 or x.shape[0] != 1:
        return "not a batch-1 NHWC int8 / float32 op"
    if any(t is not None and views.is_slice(t) for t in [*op.inputs, y]):
        return "reads or writes a slice of a concatenation"
    if casc.is_reducer(op):
        return None if x.dtype == DType.INT8 else "a float global pool"
    if y.shape[1] < 2:
        return "a single output row"
    return None


def _run_problem(graph: Graph, run: list[Op], readers: dict) -> str | None:
    """Why the consecutive ops `run` cannot be one cascade, or None."""
    inner = {m.outputs[0] for m in run}
    outside = {t for m in run for t in m.inputs if t is not None and t.in_arena and t not in inner}
    if len(outside) != 1:
        return f"{len(outside)} inputs from outside (a cascade reads one)"
    x = next(iter(outside))
    if any(casc.is_reducer(m) for m in run[:-1]):
        return "a global pool ends a cascade"
    if run[0].inputs[0] is not x:
        return "the first op does not read the cascade's input"
    outputs = set(graph.outputs)
    for m in run[:-1]:
        t = m.outputs[0]
        if t in outputs or any(r not in run for r in readers.get(t, [])):
            return f"'{t.name}' is read after the cascade"
    return None


def _readers(graph: Graph) -> dict:
    found: dict = {}
    for op in graph.ops:
        for t in op.inputs:
            if t is not None:
                found.setdefault(t, []).append(op)
    return found


def _replace(graph: Graph, i: int, j: int, op: Op) -> Graph:
    return dataclasses.replace(graph, ops=graph.ops[:i] + [op] + graph.ops[j:])


class _Weigh:
    """The arena bound and instructions of graphs with candidate cascades (no band lowering for
    the bound: a cascade's scratch is its rings plus the largest member's own scratch)."""

    def __init__(self, ctx):
        self.cost = ctx.cost
        self.steps = ctx.steps

    def scratch(self, op: Op) -> int:
        if op.kind == casc.CASCADE:
            return casc.program(op).scratch + max(self.cost.scratch(m) for m in casc.members(op))
        return self.cost.scratch(op)

    def access(self, op: Op) -> str | None:
        return casc.BAND if op.kind == casc.CASCADE else self.cost.access(op)

    def peak(self, graph: Graph) -> int:
        return self.cost.peak(graph, self.scratch, self.access)

    def peak_steps(self, graph: Graph) -> list[int]:
        """The steps at the peak (every step when the build gives no per-step bounds)."""
        if self.steps is None:
            return list(range(len(graph.ops)))
        bounds = self.steps(graph, self.scratch, self.access)
        return [s for s, b in enumerate(bounds) if b == max(bounds)]

    def extra(self, op: Op) -> int | None:
        """Instructions the cascade adds over its members run whole (None: no kernel)."""
        call = self.cost.call(op)
        if call is None:
            return None
        return call_instructions(call) - sum(call_instructions(self.cost.call(m)) for m in casc.members(op))

    def shaped(self, graph: Graph, i: int, j: int, op: Op, bound: int) -> tuple[Op, int | None]:
        """The cascade `op` (graph.ops[i:j], one row at a time) in the band shape of SHAPES with
        the fewest instructions whose arena bound stays within `bound`, and its extra instructions."""
        best = (op, self.extra(op))
        if best[1] is None:
            return best
        ms = list(casc.members(op))
        seen = {_bands(op)}
        for shape in SHAPES:
            other = casc.make(ms, shape)
            if _bands(other) in seen:
                continue  # (a short cascade: a larger shape gives the same bands)
            seen.add(_bands(other))
            if self.peak(_replace(graph, i, j, other)) > bound:
                continue
            extra = self.extra(other)
            if extra is not None and extra < best[1]:
                best = (other, extra)
        return best


def _bands(op: Op) -> tuple:
    return tuple((b.m, b.a, b.b) for step in casc.schedule(op) for b in step)


def cascade(graph: Graph, ctx) -> Graph:
    """The graph with the winning cascades (see the module docstring)."""
    if ctx.cost is None or ctx.cost.peak is None:
        return graph
    weigh = _Weigh(ctx)
    total = ctx.cost.estimate(graph).instructions
    budget, spent = BUDGETS[ctx.optimize] * total, 0
    refused: set[tuple[int, ...]] = set()
    while True:
        found = _best(graph, weigh, refused)
        if found is None:
            return graph
        (i, j, op), before, after = found
        indices = tuple(sorted({k for m in graph.ops[i:j] for k in source_indices(m)}))
        op, extra = weigh.shaped(graph, i, j, op, after)
        extra = None if extra is None else round(extra)
        saved = f"arena bound {before:,} -> {after:,} B"
        if extra is None or spent + extra > budget:
            why = "no kernel" if extra is None else f"{extra:+,} instructions over the {ctx.optimize} budget"
            ctx.log.append(Decision(RULE, list(indices), "declined", f"{saved}, but {why}"))
            refused.add(indices)
            if len(refused) >= MAX_REFUSED:
                return graph
            continue
        spent += extra
        prog = casc.program(op)
        rings = ", ".join(f"'{short_name(r.t.name)}' {r.rows}/{r.t.shape[1]} rows" for r in prog.rings.values())
        ctx.log.append(Decision(RULE, list(indices), "fused",
                                f"{saved}, instructions {extra:+,}; bands of {op.attrs.shape}; rings {rings}: "
                                f"{prog.scratch:,} B for {casc.whole_bytes(op):,} B of whole intermediates"))
        graph = _replace(graph, i, j, op)


def _best(graph: Graph, weigh: _Weigh, refused: set) -> tuple | None:
    """The run whose cascade lowers the arena bound most (shortest on ties), with the bounds."""
    base = weigh.peak(graph)
    readers = _readers(graph)
    ok = [member_problem(op) is None for op in graph.ops]
    peaks = weigh.peak_steps(graph)  # a run lowers the peak only if it covers a step there
    best = None
    for i in range(len(graph.ops)):
        for j in range(i + 2, min(i + MAX_OPS, len(graph.ops)) + 1):
            if not ok[j - 1] or not ok[i]:
                break
            if not any(i <= s < j for s in peaks):
                continue
            run = graph.ops[i:j]
            if _run_problem(graph, run, readers):
                continue
            op = casc.make(run)
            if tuple(sorted({k for m in run for k in source_indices(m)})) in refused:
                continue
            peak = weigh.peak(_replace(graph, i, j, op))
            if peak < base and (best is None or peak < best[1]):
                best = ((i, j, op), peak)
    if best is None:
        return None
    return best[0], base, best[1]
