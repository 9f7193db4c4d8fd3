"""The memory planner: operator order, arena offsets with in-place overlap, and the proof of both.

    plan(graph) -> Plan   # graph: ops in a valid execution order, after fusion

Pipeline: liveness.build groups tensors into buffers (aliases share one) and collects
each op's declared overlap tolerance (inplace.py); schedule.best_order picks the op
order with the smallest peak; allocate places buffers (greedy by size, then a seeded
hill-climb that stops at the lower bound); check.check replays the result and raises
PlanError on any conflict. Kernels must follow the access-order contract at the top of
inplace.py, and run backward (last unit first) for the ops in Plan.backward.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..errors import ArenaLimitError, MicrofuseError, PlanError
from ..ir import Graph, Op, Tensor, short_name
from . import allocate, check, inplace, liveness, schedule, state
from .liveness import Buffer, Buffers, Pair
from .result import BufferInfo, OverlapUse, Plan, Savings


@dataclass
class _Placement:
    order: list[Op]
    life: dict[Buffer, tuple[int, int]]
    pairs: list[Pair]
    offsets: list[int]
    arena: int
    greedy: int  # greedy by size, with overlap
    whole_greedy: int  # greedy by size, without overlap
    whole_bound: int
    overlap_bound: int


def _place(bufs: Buffers, order: list[Op], align: int, seed: int) -> _Placement:
    life = liveness.lifetimes(bufs, order)
    pairs = liveness.live_pairs(bufs, order, life)
    whole, overlap = liveness.step_bytes(bufs, order, life, pairs)
    items = [allocate.Item(b.size, *life[b]) for b in bufs.buffers]
    rules = [allocate.Overlap(p.src.index, p.dst.index, p.forward, p.backward) for p in pairs]
    forbid = allocate.forbidden(items, rules)
    greedy = allocate.arena_size(items, allocate.first_fit(
        items, forbid, allocate.greedy_by_size(items), align))
    plain = allocate.forbidden(items, [])
    whole_greedy = allocate.arena_size(items, allocate.first_fit(
        items, plain, allocate.greedy_by_size(items), align))
    _, offsets = allocate.hill_climb(items, forbid, align, max(overlap), seed)
    return _Placement(order, life, pairs, offsets, allocate.arena_size(items, offsets), greedy,
                      whole_greedy, max(whole), max(overlap))


def _direction(p: Pair, shift: int) -> str:
    return "forward" if shift <= p.forward else "backward"


def _peak_step(bufs: Buffers, pl: _Placement) -> int:
    steps = max(len(pl.order), 1)
    top = [0] * steps
    for b in bufs.buffers:
        first, last = pl.life[b]
        for s in range(first, last + 1):
            top[s] = max(top[s], pl.offsets[b.index] + b.size)
    return top.index(max(top))


def _limit_error(plan: Plan, limit: int) -> ArenaLimitError:
    s = plan.peak_step
    where = plan.order[s].where + (f" '{short_name(plan.order[s].name)}'" if plan.order[s].name else "") \
        if plan.order else "no op"
    alive = sorted(plan.alive_at(s), key=lambda b: b.offset)
    names = ", ".join(f"'{short_name(b.name)}' {b.size} B @{b.offset}" for b in alive)
    return ArenaLimitError(f"arena needs {plan.arena_bytes} bytes, over the limit of {limit}: peak at "
                     f"step {s} ({where}), alive: {names}")


def plan(graph: Graph, arena_limit: int | None = None, align: int = 16,
         scratch: Callable[[Op], int] | None = None,
         allow_backward: bool | Callable[[Op], bool] = True,
         seed: int = 0, max_states: int = 20_000,
         access: Callable[[Op], str | None] = inplace.reference_access,
         own_state: Callable[[Op], int] | None = None) -> Plan:
    """Plan the arena for `graph` (see the module docstring); raise PlanError over `arena_limit`.

    scratch(op) gives the bytes of scratch an op's kernel needs during its step.
    allow_backward (for all ops, or per op) says which kernels can run last unit first;
    False keeps every kernel running forward (fewer overlaps). access(op) is the access order
    the op's kernel declares (KernelSpec.access; by default its reference kernel's). own_state(op)
    gives the bytes of state an op's kernel keeps between invokes (Call.state), placed in the state area.
    """
    if align < 1:
        raise PlanError(f"alignment must be a positive number of bytes, got {align}")
    backward = allow_backward if callable(allow_backward) else (lambda op: bool(allow_backward))
    orders = {op: access(op) for op in graph.ops}
    bufs = liveness.build(graph, scratch, backward, orders.get)
    given = list(graph.ops)
    chosen = schedule.best_order(bufs, max_states)
    tried = [_place(bufs, given, align, seed)]
    if any(a is not b for a, b in zip(chosen, given)):
        tried.append(_place(bufs, chosen, align, seed))
    pl = min(tried, key=lambda p: p.arena)  # the graph's order on ties
    result = _plan_from(bufs, pl, tried[0], align)
    result.access = orders
    result.state_offsets, result.own_state, result.state_bytes = state.layout(graph, align, own_state)
    check.check(graph, result)
    if arena_limit is not None and result.arena_bytes > arena_limit:
        raise _limit_error(result, arena_limit)
    return result


def _plan_from(bufs: Buffers, pl: _Placement, base: _Placement, align: int) -> Plan:
    offsets = {t: pl.offsets[b.index] + bufs.within.get(t, 0) for t, b in bufs.of.items()}  # slices: inside
    infos = [BufferInfo(b.name, list(b.tensors), b.size, pl.offsets[b.index], *pl.life[b], b.scratch_of)
             for b in bufs.buffers]
    scratch = {b.scratch_of: (pl.offsets[b.index], b.size) for b in bufs.buffers if b.scratch_of}
    step = {op: i for i, op in enumerate(pl.order)}
    backward, uses = set(), []
    for p in pl.pairs:
        src, dst = pl.offsets[p.src.index], pl.offsets[p.dst.index]
        if not (src < dst + p.dst.size and dst < src + p.src.size):
            continue
        direction = _direction(p, dst - src)
        if direction == "backward":
            backward.add(p.op)
        for r in p.rules:
            uses.append(OverlapUse(step[p.op], p.op, r.input, r.output, dst - src, direction, r.pattern))
    savings = Savings(base.whole_greedy, base.whole_greedy - pl.whole_greedy,
                      pl.whole_greedy - pl.greedy, pl.greedy - pl.arena)
    return Plan(offsets, pl.arena, pl.whole_bound, pl.overlap_bound, list(pl.order), savings, infos,
                scratch, backward, uses, align, _peak_step(bufs, pl))


def peak_bound(graph: Graph, scratch: Callable[[Op], int] | None = None,
               access: Callable[[Op], str | None] = inplace.reference_access) -> int:
    """The overlap-aware bound on the arena peak in the graph's own op order (with each op's
    kernel scratch when `scratch(op)` gives it): what the fusion cost model weighs; 0 for a
    graph the planner cannot take."""
    return max(step_bounds(graph, scratch, access), default=0)


def step_bounds(graph: Graph, scratch: Callable[[Op], int] | None = None,
                access: Callable[[Op], str | None] = inplace.reference_access) -> list[int]:
    """peak_bound's figure per step of the graph's order (empty for a graph the planner cannot
    take): where the peak is, for a rewrite that can only lower the steps it covers."""
    try:
        bufs = liveness.build(graph, scratch, access=access)
    except MicrofuseError:
        return []
    order = list(graph.ops)
    life = liveness.lifetimes(bufs, order)
    _, overlap = liveness.step_bytes(bufs, order, life, liveness.live_pairs(bufs, order, life))
    return list(overlap)


__all__ = ["Plan", "BufferInfo", "OverlapUse", "Savings", "plan", "peak_bound", "step_bounds", "PlanError"]
