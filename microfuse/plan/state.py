"""The state area: tensors that outlive an invoke, each at its own aligned offset, apart from the arena."""

from __future__ import annotations

from ..errors import PlanError
from ..ir import Graph, Tensor


def layout(graph: Graph, align: int) -> tuple[dict[Tensor, int], int]:
    """(offset of every state tensor, the area's bytes): one after the other, in first-use order.
    State is alive for the whole stream, so nothing shares its bytes."""
    offsets: dict[Tensor, int] = {}
    at = 0
    for t in graph.state():
        offsets[t] = at
        at += -(-t.nbytes // align) * align
    return offsets, at


def check(graph: Graph, offsets: dict[Tensor, int], size: int, arena_offsets: dict[Tensor, int],
          align: int) -> None:
    """Every state tensor has an aligned region of its own inside the area and none is in the arena."""
    spans = []
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
