"""TFLM's activation plan as TFLM makes it: its buffer requests and its GreedyMemoryPlanner, reproduced."""

from __future__ import annotations

from dataclasses import dataclass

ALIGNMENT = 16  # MicroArenaBufferAlignment(): every planned buffer is rounded up to it


@dataclass(frozen=True)
class Request:
    """One buffer TFLM asks its planner for: bytes (aligned) and the scopes it is alive in."""

    name: str
    size: int
    first: int
    last: int


@dataclass(frozen=True)
class TflmPlan:
    requests: tuple[Request, ...]
    offsets: tuple[int, ...]  # by request, in request order
    head_bytes: int  # the planner's high-water mark: what TFLM's arena head holds for activations


def requests(graph) -> list[Request]:
    """The allocation info TFLM builds for subgraph 0: scope 0 is the invocation's start, op k
    (file order) is scope k+1; inputs are created at 0, outputs live to the last scope.
    Constants and zero-byte tensors need no allocating. Kernel scratch requests are not modelled
    (TFLM's reference kernels for the ops here make none)."""
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    order: dict[int, object] = {}

    def created(t, scope):
        order.setdefault(id(t), t)
        first[id(t)] = scope
        last[id(t)] = scope

    def used(t, scope):
        order.setdefault(id(t), t)
        last[id(t)] = scope

    for t in graph.inputs:
        created(t, 0)
    for t in graph.outputs:
        created(t, 0)
    scope = 0
    for op in graph.ops:
        scope += 1
        for t in op.outputs:
            created(t, scope)
        for t in [*op.inputs, *op.outputs]:
            if t is not None:
                used(t, scope)
    for t in graph.outputs:
        used(t, scope)
    # TFLM adds buffers in tensor-index order (then scratch); the index breaks size ties below
    tensors = sorted(order.values(), key=lambda t: t.index)
    return [Request(t.name, _align(t.nbytes), first[id(t)], last[id(t)])
            for t in tensors if t.in_arena and t.nbytes > 0]  # state: TFLM keeps it in the tail


def _align(n: int) -> int:
    return -(-n // ALIGNMENT) * ALIGNMENT


def greedy(reqs: list[Request]) -> tuple[int, ...]:
    """GreedyMemoryPlanner::CalculateOffsetsIfNeeded for online-planned buffers: largest first
    (ties: the later-added first, as its reversed fill and stable sort give), each at the lowest
    gap between the time-overlapping buffers already placed, walked in offset order."""
    by_size = sorted(reversed(range(len(reqs))), key=lambda i: -reqs[i].size)  # sorted() is stable
    offsets = [0] * len(reqs)
    placed: list[int] = []  # request ids, kept in ascending offset (ties: earlier placed first)
    for i in by_size:
        want = reqs[i]
        candidate = 0
        for j in placed:
            other = reqs[j]
            if other.first > want.last or want.first > other.last:
                continue  # not alive at the same time
            if offsets[j] - candidate >= want.size:
                break  # the gap before this buffer is big enough
            candidate = max(candidate, offsets[j] + other.size)
        offsets[i] = candidate
        placed.insert(next((k for k, j in enumerate(placed) if offsets[j] > candidate), len(placed)), i)
    return tuple(offsets)


def plan(graph) -> TflmPlan:
    """TFLM's plan for a graph as read from the file (ops in file order, tensors with indices)."""
    reqs = requests(graph)
    offsets = greedy(reqs)
    head = max((o + r.size for o, r in zip(offsets, reqs)), default=0)
    return TflmPlan(tuple(reqs), offsets, head)
