"""Buffers (tensors sharing storage through aliases, and op scratch), lifetimes over an order, bounds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .. import ops as opdefs
from .. import views
from ..errors import PlanError
from ..ir import Graph, Op, Tensor
from . import inplace
from .inplace import INF, Rule


@dataclass(eq=False)
class Buffer:
    """One region of the arena: a tensor with its aliases, or one op's scratch."""

    index: int
    tensors: list[Tensor]  # the stored tensor first, then its aliases
    size: int
    producer: Op | None  # None for a graph input
    consumers: list[Op] = field(default_factory=list)  # ops reading any of the tensors
    is_input: bool = False
    is_output: bool = False
    scratch_of: Op | None = None
    writers: list[Op] = field(default_factory=list)  # ops writing slices of it (views.Slice)

    @property
    def name(self) -> str:
        if self.scratch_of is not None:
            return f"scratch of {self.scratch_of.where}"
        return self.tensors[0].name

    def __repr__(self) -> str:
        return f"Buffer({self.index}, {self.name!r}, {self.size})"


@dataclass(eq=False)
class Pair:
    """`op` may write its output `dst` over its input `src` if `src` dies at `op`."""

    op: Op
    src: Buffer
    dst: Buffer
    forward: int  # forward run safe iff dst offset - src offset <= forward
    backward: int | None  # backward run safe iff the shift >= backward; None: not allowed
    rules: list[Rule]


@dataclass(eq=False)
class Buffers:
    """The order-independent storage picture of a graph."""

    graph: Graph
    buffers: list[Buffer]
    of: dict[Tensor, Buffer]  # every non-constant tensor -> its buffer
    made: dict[Op, list[Buffer]]  # buffers an op creates (its stored outputs and scratch)
    reads: dict[Op, list[Buffer]]  # distinct buffers an op reads
    pairs: dict[Op, list[Pair]]  # overlap candidates, usable when src dies at the op
    within: dict[Tensor, int] = field(default_factory=dict)  # a slice -> its byte offset in the buffer


def _alias_roots(graph: Graph) -> dict[Tensor, Tensor]:
    """Each alias output -> the tensor that owns the storage (follows RESHAPE chains)."""
    root: dict[Tensor, Tensor] = {}
    for op in graph.ops:
        d = opdefs.REGISTRY.get(op.kind)
        if d is None or not d.alias or op.kind == views.CONCAT_VIEW:
            continue
        src = op.inputs[0]
        if src.is_const:
            raise PlanError(f"{op.where} '{op.name}': aliases a constant; fold it before planning")
        if src.variable:
            raise PlanError(f"{op.where} '{op.name}': aliases state '{src.name}' (the state area is not the arena)")
        for out in op.outputs:
            root[out] = root.get(src, src)
    for t in graph.activations():  # a slice lives in its base's storage
        if views.is_slice(t):
            root[t] = t.base
    # an alias may be listed before the alias it hangs from; resolve chains fully
    for t in list(root):
        r = root[t]
        while r in root:
            r = root[r]
        root[t] = r
    return root


def build(graph: Graph, scratch: Callable[[Op], int] | None = None,
          allow_backward: Callable[[Op], bool] = lambda op: True,
          access: Callable[[Op], str | None] = inplace.reference_access) -> Buffers:
    """Group tensors into buffers, note producers, consumers, scratch and overlap candidates
    (access(op): the access order its kernel declares, inplace.ORDERS)."""
    root = _alias_roots(graph)
    producer = {t: op for op in graph.ops for t in op.outputs if t not in root and t.in_arena}
    inputs, outputs = set(graph.inputs), set(graph.outputs)
    buffers: list[Buffer] = []
    of: dict[Tensor, Buffer] = {}
    for t in graph.activations():
        r = root.get(t, t)
        if r not in of:
            of[r] = Buffer(len(buffers), [r], r.nbytes, producer.get(r), is_input=r in inputs)
            buffers.append(of[r])
        b = of[r]
        if t is not r:
            b.tensors.append(t)
            b.size = max(b.size, t.nbytes)
        of[t] = b
        b.is_output |= t in outputs
    within = _slice_offsets(graph, of)
    made: dict[Op, list[Buffer]] = {}
    reads: dict[Op, list[Buffer]] = {}
    for op in graph.ops:
        read = []
        for t in op.inputs:
            if t is not None and t.in_arena and of[t] not in read:
                read.append(of[t])
        reads[op] = read
        for b in read:
            b.consumers.append(op)
        made[op] = [of[t] for t in op.outputs if t not in root and t.in_arena]  # state: not the arena
        for t in op.outputs:
            if views.is_slice(t) and op not in of[t].writers:
                of[t].writers.append(op)
        need = scratch(op) if scratch else 0
        if need > 0:
            s = Buffer(len(buffers), [], need, op, scratch_of=op)
            buffers.append(s)
            made[op].append(s)
    pairs = {op: _pairs(op, of, reads[op], allow_backward, access(op)) for op in graph.ops}
    return Buffers(graph, buffers, of, made, reads, pairs, within)


def _slice_offsets(graph: Graph, of: dict[Tensor, Buffer]) -> dict[Tensor, int]:
    """Byte offset of every slice inside its buffer (slices of slices add up; aliases add 0)."""
    within: dict[Tensor, int] = {}

    def offset(t: Tensor) -> int:
        if t in within:
            return within[t]
        if views.is_slice(t):
            if t.base not in of:
                raise PlanError(f"slice '{t.name}' lives in '{t.base.name}', which is not in the graph")
            within[t] = offset(t.base) + t.offset
            of[t].size = max(of[t].size, within[t] + t.span)
        else:
            within[t] = 0
        return within[t]

    for t in graph.activations():
        offset(t)
    return {t: v for t, v in within.items() if v}


def _pairs(op: Op, of: dict[Tensor, Buffer], read: list[Buffer],
           allow_backward: Callable[[Op], bool], order: str | None) -> list[Pair]:
    """Candidate overlaps of op's output over each input buffer whose every read is declared."""
    found = []
    by_slot = {r.slot: r for r in inplace.rules(op, order)}
    if not by_slot or any(views.is_slice(t) for t in op.outputs) or not op.outputs[0].in_arena:
        return found  # an op writing a slice (or into state) never overlaps its inputs
    dst = of[op.outputs[0]]
    for src in read:
        slots = [i for i, t in enumerate(op.inputs) if t is not None and t.in_arena and of[t] is src]
        if src.is_output or not all(i in by_slot for i in slots):
            continue
        if any(views.is_slice(op.inputs[i]) for i in slots):
            continue  # shifts are declared from tensor starts: a slice starts inside its buffer
        rs = [by_slot[i] for i in slots]
        found.append(Pair(op, src, dst, min(r.forward for r in rs), max(r.backward for r in rs), rs))
    if len(found) > 1 or not allow_backward(op):
        # one direction must suit every overlapped input: keep the common forward run only
        for p in found:
            p.backward = None
    return found


def lifetimes(bufs: Buffers, order: list[Op]) -> dict[Buffer, tuple[int, int]]:
    """[first, last] step of every buffer: from its producing step (inputs: 0) to its last read."""
    step = {op: i for i, op in enumerate(order)}
    end = max(len(order) - 1, 0)
    life = {}
    for b in bufs.buffers:
        if b.scratch_of is not None:
            life[b] = (step[b.scratch_of], step[b.scratch_of])
            continue
        made = 0 if b.producer is None else step[b.producer]
        first = min([made, *(step[w] for w in b.writers)])  # a slice is written before its base
        last = max([made, *(step[c] for c in b.consumers)])
        life[b] = (first, end if b.is_output else last)
    return life


def live_pairs(bufs: Buffers, order: list[Op], life: dict[Buffer, tuple[int, int]]) -> list[Pair]:
    """The candidate overlaps usable in this order: the input really dies at the op."""
    used = []
    for i, op in enumerate(order):
        used += [p for p in bufs.pairs[op] if life[p.src][1] == i and life[p.dst][0] == i]
    return used


def max_overlap(src_size: int, dst_size: int, forward: int, backward: int | None) -> int:
    """Most bytes dst can share with src under the shift bounds (alignment ignored)."""
    def footprint(shift: int) -> int:
        return max(src_size, shift + dst_size) - min(0, shift)

    lo_best, hi_best = min(0, src_size - dst_size), max(0, src_size - dst_size)
    best = footprint(min(max(forward, -dst_size), lo_best))
    if backward is not None:
        best = min(best, footprint(max(min(backward, src_size), hi_best)))
    return src_size + dst_size - best


def step_bytes(bufs: Buffers, order: list[Op], life: dict[Buffer, tuple[int, int]],
               pairs: list[Pair]) -> tuple[list[int], list[int]]:
    """Per step: bytes of whole buffers alive, and that minus the most the overlaps can save."""
    n = max(len(order), 1)
    whole = [0] * n
    for b in bufs.buffers:
        first, last = life[b]
        for s in range(first, last + 1):
            whole[s] += b.size
    saved: dict[tuple[int, Buffer], int] = {}
    for p in pairs:
        key = (life[p.dst][0], p.dst)
        saved[key] = saved.get(key, 0) + max_overlap(p.src.size, p.dst.size, p.forward, p.backward)
    overlap = list(whole)
    for (s, dst), v in saved.items():
        overlap[s] -= min(v, dst.size)
    return whole, overlap


__all__ = ["Buffer", "Buffers", "Pair", "build", "lifetimes", "live_pairs", "max_overlap",
           "step_bytes", "INF"]
