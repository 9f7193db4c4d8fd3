"""The state area: tensors that outlive an invoke, and state a kernel keeps for itself (Call.state),
each at its own aligned offset, apart from the arena."""

from __future__ import annotations

from typing import Callable

from ..errors import PlanError
from ..ir import Graph, Op, Tensor


def layout(graph: Graph, align: int, own: Callable[[Op], int] | None = None
           ) -> tuple[dict[Tensor, int], dict[Op, tuple[int, int]], int]:
    """(offset of every state tensor, (offset, bytes) of each op's own state, the area's bytes): one
    after the other, tensors in first-use order, then the ops' own state in graph order.
    State is alive for the whole stream, so nothing shares its bytes."""
    offsets: dict[Tensor, int] = {}
    at = 0
    for t in graph.state():
        offsets[t] = at
        at += -(-t.nbytes // align) * align
    kept: dict[Op, tuple[int, int]] = {}
    for op in graph.ops:
        size = own(op) if own else 0
        if size:
            kept[op] = (at, size)
            at += -(-size // align) * align
    return offsets, kept, at


def check(graph: Graph, offsets: dict[Tensor, int], size: int, arena_offsets: dict[Tensor, int],
          align: int, kept: dict[Op, tuple[int, int]] | None = None) -> None:
    """Every state tensor and op's own state has an aligned region of its own inside the area and no
    state tensor is in the arena."""
    spans = []
    for op, (o, n) in (kept or {}).items():
        if o % align or o < 0 or o + n > size:
            raise PlanError(f"plan check: the state of {op.where} at {o} (+{n}) is misaligned or outside "
                            f"the {size}-byte state area")
        spans.append((o, o + n, f"the state of {op.where}"))
    for t in graph.state():
        if t in arena_offsets:
            raise PlanError(f"plan check: state '{t.name}' was placed in the arena")
        if t not in offsets:
            raise PlanError(f"plan check: state '{t.name}' has no offset in the state area")
        o = offsets[t]
        if o % align or o < 0 or o + t.nbytes > size:
            raise PlanError(f"plan check: state '{t.name}' at {o} (+{t.nbytes}) is misaligned or outside "
                            f"the {size}-byte state area")
        spans.append((o, o + t.nbytes, t.name))
    spans.sort()
    for (_, end, a), (start, _, b) in zip(spans, spans[1:]):
        if start < end:
            raise PlanError(f"plan check: state '{a}' and '{b}' overlap in the state area")
