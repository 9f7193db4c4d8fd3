"""What the planner returns: the Plan (offsets, order, directions) and its report parts."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir import Op, Tensor


@dataclass(eq=False)
class BufferInfo:
    """One arena region for the report's memory timeline."""

    name: str
    tensors: list[Tensor]  # sharing the region (a tensor and its aliases); empty for scratch
    size: int
    offset: int
    first: int  # first step it is alive (0 for graph inputs)
    last: int  # last step it is read (the last step for graph outputs)
    scratch_of: Op | None = None


@dataclass(frozen=True, eq=False)
class OverlapUse:
    """An op whose output is placed over (part of) an input that dies there."""

    step: int
    op: Op
    input: Tensor
    output: Tensor
    shift: int  # output offset - input offset
    direction: str  # "forward" or "backward": how the kernel must walk its units
    pattern: str  # the access-order clause in inplace.py it relies on


@dataclass(frozen=True)
class Savings:
    """Arena bytes from a TFLite-Micro-like plan down to ours, by cause (signed)."""

    baseline_bytes: int  # greedy by size, whole tensors, the graph's order
    reorder: int  # from choosing the op order
    overlap: int  # from in-place and partially overlapping outputs
    search: int  # from the hill-climb over greedy placement


@dataclass(eq=False)
class Plan:
    offsets: dict[Tensor, int]  # every non-constant tensor (aliases share their source's offset)
    arena_bytes: int
    lower_bound_bytes: int  # peak over steps of whole buffers alive, in `order`
    overlap_bound_bytes: int  # the same less what declared overlaps could save at best
    order: list[Op]
    savings: Savings
    buffers: list[BufferInfo]
    scratch: dict[Op, tuple[int, int]]  # op -> (offset, size) of its scratch during its step
    backward: set[Op] = field(default_factory=set)  # ops whose kernel must run last unit first
    overlaps: list[OverlapUse] = field(default_factory=list)
    align: int = 16
    peak_step: int = 0
    access: dict[Op, str | None] = field(default_factory=dict)  # each op's kernel's access order
    state_offsets: dict[Tensor, int] = field(default_factory=dict)  # state tensors in the state area
    state_bytes: int = 0  # the state area (plan/state.py): never shared with the arena
    own_state: dict[Op, tuple[int, int]] = field(default_factory=dict)  # op -> (offset, size) of its kernel's state

    def alive_at(self, step: int) -> list[BufferInfo]:
        return [b for b in self.buffers if b.first <= step <= b.last]
