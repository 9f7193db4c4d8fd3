"""Operator order: the topological order with the smallest peak (exact search over executed-op sets).

The cost of an order is its peak over steps of the bytes alive during the step, less
what the declared overlaps can save there (liveness.step_bytes), then the peak of
whole buffers as a tie-break. The exact search is a dynamic program over the sets of
ops already executed (down-sets of the dependency graph): the memory alive before an
op runs depends only on that set, so the best peak to reach a set is all that needs
keeping. Chains have one set per step; branches multiply them. Beyond `max_states`
sets per step a greedy order is used (the ready op with the smallest step cost).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import Op, Tensor
from .liveness import Buffers, lifetimes, live_pairs, max_overlap, step_bytes


@dataclass
class _Model:
    """Bit-mask view of the graph for the search: bit i is graph op i."""

    ops: list[Op]
    preds: list[int]  # per op: mask of ops it depends on
    made: list[int]  # per op: bytes of buffers it creates (outputs and scratch)
    pairs: list[list[tuple[int, int, int, int]]]  # per op: (src, dst, src consumer mask, saving)
    alive: list[tuple[int, int, int, bool, bool]]  # per buffer: (size, producer bit, consumers, out, in)


def _model(bufs: Buffers) -> _Model:
    ops = bufs.graph.ops
    index = {op: i for i, op in enumerate(ops)}
    made_by = {t: op for op in ops for t in op.outputs if not t.variable}  # state: ordered below
    preds, made, pairs = [], [], []
    cons = {b: sum(1 << index[c] for c in b.consumers) for b in bufs.buffers}
    last_touch: dict[Tensor, Op] = {}  # ops reading or writing one state tensor keep their order
    for op in ops:
        deps = {made_by[t] for t in op.inputs if t is not None and t in made_by}
        for t in [*op.inputs, *op.outputs]:
            if t is not None and t.variable:
                if t in last_touch:
                    deps.add(last_touch[t])
                last_touch[t] = op
        preds.append(sum(1 << index[d] for d in deps))
        made.append(sum(b.size for b in bufs.made[op]))
        pairs.append([(p.src.index, p.dst.index, cons[p.src],
                       max_overlap(p.src.size, p.dst.size, p.forward, p.backward))
                      for p in bufs.pairs[op]])
    alive = [(b.size, 0 if b.producer is None else 1 << index[b.producer], cons[b], b.is_output,
              b.producer is None)
             for b in bufs.buffers if b.scratch_of is None]
    return _Model(ops, preds, made, pairs, alive)


def _live_before(m: _Model, done: int) -> int:
    total = 0
    for size, prod, cons, out, is_in in m.alive:
        if not (is_in or prod & done):
            continue
        if out or cons & ~done or (not cons and is_in and done == 0):
            total += size
    return total


def _step(m: _Model, done: int, i: int, live: int) -> tuple[int, int]:
    """(overlap-aware, whole) bytes during op i after the set `done`."""
    whole = live + m.made[i]
    after = done | (1 << i)
    saved: dict[int, int] = {}
    for src, dst, cons, saving in m.pairs[i]:
        if not cons & ~after and not _is_output(m, src):
            saved[dst] = saved.get(dst, 0) + saving
    dst_size = {dst: _size(m, dst) for dst in saved}
    return whole - sum(min(v, dst_size[d]) for d, v in saved.items()), whole


def _is_output(m: _Model, buffer: int) -> bool:
    return m.alive[buffer][3]


def _size(m: _Model, buffer: int) -> int:
    return m.alive[buffer][0]


def _ready(m: _Model, done: int) -> list[int]:
    return [i for i in range(len(m.ops)) if not done >> i & 1 and m.preds[i] & ~done == 0]


def _exact(m: _Model, max_states: int) -> list[int] | None:
    layer: dict[int, tuple[tuple[int, int], list[int]]] = {0: ((0, 0), [])}
    for _ in range(len(m.ops)):
        nxt: dict[int, tuple[tuple[int, int], list[int]]] = {}
        for done, (cost, seq) in layer.items():
            live = _live_before(m, done)
            for i in _ready(m, done):
                ov, whole = _step(m, done, i, live)
                c = (max(cost[0], ov), max(cost[1], whole))
                key = done | (1 << i)
                if key not in nxt or c < nxt[key][0]:
                    nxt[key] = (c, seq + [i])
        if len(nxt) > max_states:
            return None
        layer = nxt
    return next(iter(layer.values()))[1] if layer else []


def _greedy(m: _Model) -> list[int]:
    done, seq = 0, []
    for _ in range(len(m.ops)):
        live = _live_before(m, done)
        i = min(_ready(m, done), key=lambda i: (*_step(m, done, i, live), i))
        seq.append(i)
        done |= 1 << i
    return seq


def order_cost(bufs: Buffers, order: list[Op]) -> tuple[int, int]:
    """(overlap-aware peak, whole-buffer peak) of an order, from the liveness module."""
    life = lifetimes(bufs, order)
    whole, overlap = step_bytes(bufs, order, life, live_pairs(bufs, order, life))
    return max(overlap), max(whole)


def best_order(bufs: Buffers, max_states: int = 20_000) -> list[Op]:
    """The order with the smallest (overlap-aware, whole) peak; the graph's order on ties."""
    m = _model(bufs)
    seq = _exact(m, max_states)
    if seq is None:
        seq = _greedy(m)
    order = [m.ops[i] for i in seq]
    given = list(bufs.graph.ops)
    return order if order_cost(bufs, order) < order_cost(bufs, given) else given
