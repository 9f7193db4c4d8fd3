"""Tensors stored inside another tensor's buffer: the slices of an eliminated concatenation.

A Slice is an ordinary activation Tensor whose bytes live in `base`'s storage: `rows` runs
of `row_bytes` contiguous bytes, the first at `offset` bytes from the start of `base`, each
next one `stride` bytes further. A slice along the outermost non-unit axis is one run
(contiguous: any kernel can write it); a slice along an inner axis (channels in NHWC) is
strided, and only kernels with an output stride field can write it (lower/conv.py pick).
The planner (plan/liveness.py) puts a slice in its base's buffer at `offset`; the checker
(plan/check.py) proves every slice sits where the concatenation needs it.

CONCAT_VIEW (ops/internal.py) is the eliminated CONCATENATION: its inputs are the slices of
its output, so it costs no call and no copy (an alias); it keeps the data flow explicit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .ir import Op, Tensor
from .ops.internal import CONCAT_VIEW  # noqa: F401  (the view op's kind, registered there)


@dataclass(eq=False, repr=False)
class Slice(Tensor):
    """An activation tensor stored inside `base` (see the module docstring)."""

    base: Tensor | None = None
    offset: int = 0  # bytes from the start of base to the first element
    rows: int = 1
    row_bytes: int = 0
    stride: int = 0  # bytes from one row's start to the next

    @property
    def strided(self) -> bool:
        return self.rows > 1 and self.stride != self.row_bytes

    @property
    def span(self) -> int:
        """Bytes from the first to one past the last byte this slice holds."""
        return (self.rows - 1) * self.stride + self.row_bytes if self.rows else 0

    def byte_positions(self) -> np.ndarray:
        """Every byte of the slice, relative to the start of base, in element order."""
        starts = self.offset + np.arange(self.rows, dtype=np.int64) * self.stride
        return (starts[:, None] + np.arange(self.row_bytes, dtype=np.int64)[None, :]).reshape(-1)

    def __repr__(self) -> str:
        return (f"Slice({self.name!r}, {list(self.shape)}, {self.dtype}, of {self.base.name!r} "
                f"@{self.offset} {self.rows}x{self.row_bytes}/{self.stride})")


def is_slice(t: Tensor | None) -> bool:
    return isinstance(t, Slice)


def strided(t: Tensor | None) -> bool:
    return isinstance(t, Slice) and t.strided


def element_stride(t: Tensor) -> int:
    """Elements between the starts of consecutive rows (pixels) of an output; 0 for the dense
    layout (the kernels' default)."""
    if not strided(t):
        return 0
    return t.stride // t.dtype.size


def slice_layout(op: Op) -> list[tuple[int, int, int, int]]:
    """Where each input of a CONCATENATION (or CONCAT_VIEW) lies in its output:
    (offset, rows, row_bytes, stride) in bytes, as the concatenation's semantics require."""
    out = op.outputs[0]
    axis = op.attrs.axis % len(out.shape)
    rows = int(np.prod(out.shape[:axis], dtype=np.int64))
    size = out.dtype.size
    stride = int(np.prod(out.shape[axis:], dtype=np.int64)) * size
    found, at = [], 0
    for t in op.inputs:
        row_bytes = int(np.prod(t.shape[axis:], dtype=np.int64)) * size
        found.append((at, rows, row_bytes, stride))
        at += row_bytes
    return found


def make_slice(t: Tensor, base: Tensor, layout: tuple[int, int, int, int]) -> Slice:
    """A Slice standing for `t` (same name, shape, type, quantization) inside `base`."""
    offset, rows, row_bytes, stride = layout
    if rows == 1:
        stride = row_bytes  # one run: contiguous whatever the axis
    return Slice(t.name, tuple(t.shape), t.dtype, t.quant, None, t.index, base=base, offset=offset,
                 rows=rows, row_bytes=row_bytes, stride=stride)
