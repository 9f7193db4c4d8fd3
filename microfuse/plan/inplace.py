"""Which overlap of an op's output onto a dying input each kernel tolerates, from its access order.

ACCESS-ORDER CONTRACT: every kernel whose KernelSpec (lower/kernels.py) declares an access
order must honour that clause below, because the planner may place the output over an input
that dies at that op. The planner asks each op's kernel (plan(access=...)); the clauses are
ORDERS, keyed by the spec's `access` (ELEMENT, BINARY, WINDOW, ROW).

A kernel processes its output in *units*, in unit order ("forward") or in exactly the
reverse unit order ("backward": the plan lists such ops in Plan.backward and the kernel
must then walk its loops from the last unit to the first). Byte positions are relative
to the start of each tensor.

  Staged units:   every read a unit makes happens before the unit's first write, and no
                  read for a unit happens after a write of a unit processed later.
                  Reading ahead (for units processed later) is always allowed.
  Unstaged units: like staged, except that the unit's writes may be interleaved with
                  its own reads (the unit may re-read its inputs after a store).

Per clause (N, H, W, C: NHWC; pixels in raster order n, y, x; elements in flat
row-major order):

- ELEMENT, unary element-wise kernels (RELU, RELU6, LOGISTIC, TANH, LEAKY_RELU, HARD_SWISH,
  QUANTIZE, DEQUANTIZE: the LUT and float kernels): unit = element i. Reads input element i, writes output element i. Staged
  (the value written depends on the value read; an element is never read twice).
- BINARY (ADD, SUB, MUL kernels): unit = output element i. Reads element i of every input whose shape
  equals the output shape; broadcast inputs may be read at any time (the planner never
  lets the output overlap a broadcast input). Staged.
- WINDOW (CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MAX_POOL_2D kernels, reference,
  fast and fused variants alike): unit = output pixel
  (n, y, x). Reads the input window rows y*stride_h - pad_top + i*dilation_h and columns
  x*stride_w - pad_left + j*dilation_w that lie inside the image, over all channels it
  needs; writes all output channels of the pixel. Unstaged: a kernel may store output
  channel k of the pixel and then re-read the window for channel k + 1 (the simple
  channel loop), so a pixel's output never lands on its own window. pad_top / pad_left
  are ops/common.py window_pads (SAME, VALID, or EXPLICIT from a folded PAD).
  A conv fused with its global pool / MEAN (CONV_GAP, ops/internal.py) is not listed (no
  overlap): its kernel uses the output as one pixel's buffer while it still reads every
  input. Nor is a conv fused row by row with its pool (CONV_POOL): it reads input rows far
  ahead of the pooled row it writes.
- ROW (FULLY_CONNECTED kernels): unit = batch row b (input row of `depth` elements, output row of
  `units` elements). Unstaged: output element o may be stored as soon as it is
  computed, before the row is read again for o + 1.
- BAND (a CASCADE, ops/cascade.py: the band calls of its members run step by step): unit = one
  band call, in the order the steps run them; a band of a member reading the cascade's input
  reads its rows of it (the band's window), a band of the last member writes its rows of the
  output; a cascade ending in a global pool writes its output in its last band only. Unstaged.
  Its intermediates live in its scratch (rings), which plan/check.py replays row by row.
- Epilogue operands of fused ops (a non-constant input of CONV_2D, DEPTHWISE_CONV_2D or
  FULLY_CONNECTED after slot 2, or of a pool after slot 0, with the output's shape):
  unit = output element i; the operand's element i is read once, before output element
  i is stored, and never after a later-processed output element is stored. Staged.

From a unit sequence the planner derives, per (op, input), how far the output may be
shifted relative to the input (shift = output offset - input offset, in bytes):
forward is safe when shift <= `forward` (every store lands below every byte still to
be read), backward when shift >= `backward` (every store lands above them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..ir import Op, Tensor
from ..lower.kernels import BINARY, ELEMENT, ROW, WINDOW
from ..ops import cascade
from ..ops.common import window_pads

INF = 1 << 62  # "no bound": larger than any arena


@dataclass(frozen=True, eq=False)
class Access:
    """Byte spans per unit in forward order: unit u reads [r_lo, r_hi) and writes [w_lo, w_hi)."""

    r_lo: np.ndarray
    r_hi: np.ndarray
    w_lo: np.ndarray
    w_hi: np.ndarray
    staged: bool
    pattern: str  # names the contract clause, for messages and the report

    @property
    def units(self) -> int:
        return len(self.w_lo)


@dataclass(frozen=True, eq=False)
class Rule:
    """An op's declared tolerance of its output overlapping input `slot`."""

    op: Op
    slot: int
    input: Tensor
    output: Tensor
    forward: int  # forward run is safe iff shift <= forward (INF: any shift)
    backward: int  # backward run is safe iff shift >= backward (-INF: any shift)
    pattern: str


def _spans(n: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    lo = np.arange(n, dtype=np.int64) * size
    return lo, lo + size


def _flat(inp: Tensor, out: Tensor, pattern: str) -> Access:
    """Element i of `inp` read, element i of `out` written (same element count)."""
    r_lo, r_hi = _spans(out.elements, inp.dtype.size)
    w_lo, w_hi = _spans(out.elements, out.dtype.size)
    return Access(r_lo, r_hi, w_lo, w_hi, True, pattern)


def _unary(op: Op, slot: int) -> Access | None:
    inp, out = op.inputs[slot], op.outputs[0]
    if slot != 0 or inp.elements != out.elements:
        return None
    return _flat(inp, out, "element-wise")


def _binary(op: Op, slot: int) -> Access | None:
    inp, out = op.inputs[slot], op.outputs[0]
    if slot > 1 or tuple(inp.shape) != tuple(out.shape):
        return None  # a broadcast operand is read out of order
    return _flat(inp, out, "element-wise")


def _epilogue(op: Op, slot: int, first: int) -> Access | None:
    inp, out = op.inputs[slot], op.outputs[0]
    if slot < first or tuple(inp.shape) != tuple(out.shape):
        return None
    return _flat(inp, out, "epilogue operand")


def _window_geometry(op: Op) -> tuple[int, int, int, int, int, int, str]:
    """kh, kw, stride_h, stride_w, dilation_h, dilation_w, padding of a windowed op."""
    a = op.attrs
    if op.kind == "CONV_2D":
        _, kh, kw, _ = op.inputs[1].shape
    elif op.kind == "DEPTHWISE_CONV_2D":
        _, kh, kw, _ = op.inputs[1].shape
    else:
        kh, kw = a.filter_h, a.filter_w
    dh, dw = getattr(a, "dilation_h", 1), getattr(a, "dilation_w", 1)
    return kh, kw, a.stride_h, a.stride_w, dh, dw, a.padding


def _valid_range(start: np.ndarray, k: int, dil: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """First and last in-image tap positions of windows starting at `start` (first > last: none)."""
    skip = np.where(start < 0, (-start + dil - 1) // dil, 0)
    first = start + skip * dil
    last_tap = start + (k - 1) * dil
    over = np.where(last_tap > size - 1, (last_tap - (size - 1) + dil - 1) // dil, 0)
    last = last_tap - over * dil
    return first, last


def _windowed(op: Op, slot: int) -> Access | None:
    first_epilogue = 1 if "POOL" in op.kind else 3
    if slot != 0:
        return _epilogue(op, slot, first_epilogue)
    inp, out = op.inputs[0], op.outputs[0]
    n, h, w, cin = inp.shape
    _, oh, ow, cout = out.shape
    kh, kw, sh, sw, dh, dw, _ = _window_geometry(op)
    pt, _, pl, _ = window_pads(op)  # SAME, VALID or EXPLICIT (a folded PAD)
    y0, y1 = _valid_range(np.arange(oh, dtype=np.int64) * sh - pt, kh, dh, h)
    x0, x1 = _valid_range(np.arange(ow, dtype=np.int64) * sw - pl, kw, dw, w)
    batch = np.arange(n, dtype=np.int64)[:, None, None] * h
    pixel_lo = ((batch + y0[None, :, None]) * w + x0[None, None, :]) * cin
    pixel_hi = ((batch + y1[None, :, None]) * w + x1[None, None, :] + 1) * cin
    empty = (y0[None, :, None] > y1[None, :, None]) | (x0[None, None, :] > x1[None, None, :])
    es = inp.dtype.size
    r_lo = np.where(empty, INF, pixel_lo * es).ravel()
    r_hi = np.where(empty, -INF, pixel_hi * es).ravel()
    w_lo, w_hi = _spans(n * oh * ow, cout * out.dtype.size)
    return Access(r_lo, r_hi, w_lo, w_hi, False, "pixel window")


def _fully_connected(op: Op, slot: int) -> Access | None:
    if slot != 0:
        return _epilogue(op, slot, 3)
    inp, out = op.inputs[0], op.outputs[0]
    units, depth = op.inputs[1].shape
    rows = inp.elements // depth
    r_lo, r_hi = _spans(rows, depth * inp.dtype.size)
    w_lo, w_hi = _spans(rows, units * out.dtype.size)
    return Access(r_lo, r_hi, w_lo, w_hi, False, "row")


def _band(op: Op, slot: int) -> Access | None:
    """A CASCADE (ops/cascade.py) reading its input directly: unit = one band call of its
    program, in run order; it reads its rows of the input (a band of a member reading it) and
    writes its rows of the output (a band of the last member)."""
    if slot != 0:
        return None
    x, out = op.inputs[0], op.outputs[0]
    last = len(cascade.members(op)) - 1
    bands = [band for step in cascade.schedule(op) for band in step]
    rx, ro = cascade.row_bytes(x), cascade.row_bytes(out)
    spans = [[(rd.lo, rd.hi) for rd in band.reads if rd.t is x and rd.hi > rd.lo] for band in bands]
    r_lo = np.array([min(a for a, _ in s) * rx if s else INF for s in spans], dtype=np.int64)
    r_hi = np.array([max(b for _, b in s) * rx if s else -INF for s in spans], dtype=np.int64)
    writes = [band.m == last for band in bands]
    # a band writing none (sentinels half as far as INF: shift_bounds subtracts them from INF)
    w_lo = np.array([band.a * ro if w else INF // 2 for band, w in zip(bands, writes)], dtype=np.int64)
    w_hi = np.array([band.b * ro if w else -INF // 2 for band, w in zip(bands, writes)], dtype=np.int64)
    if cascade.is_reducer(cascade.members(op)[-1]):  # a global pool: its one row after the last band
        w_lo[:], w_hi[:] = INF // 2, -INF // 2
        w_lo[-1], w_hi[-1] = 0, out.nbytes
    return Access(r_lo, r_hi, w_lo, w_hi, False, "cascade band")


ORDERS: dict[str, Callable[[Op, int], Access | None]] = {
    ELEMENT: _unary, BINARY: _binary, WINDOW: _windowed, ROW: _fully_connected, cascade.BAND: _band,
}


REFERENCE = "reference"  # `order` default: the clause the kernels of the op's kind declare
# For graphs planned without choosing kernels (the planner's own tests, tools): the clause every
# kernel of the kind declares (tests/unit/test_kernel_specs.py checks the specs agree). A build
# plans with each op's chosen KernelSpec.access instead.
KIND_ORDER = {
    **{kind: ELEMENT for kind in ("RELU", "RELU6", "LOGISTIC", "TANH", "LEAKY_RELU", "HARD_SWISH",
                                  "QUANTIZE", "DEQUANTIZE")},
    **{kind: BINARY for kind in ("ADD", "SUB", "MUL")},
    **{kind: WINDOW for kind in ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D", "MAX_POOL_2D")},
    "FULLY_CONNECTED": ROW,
}


def reference_access(op: Op) -> str | None:
    """The access order the kernels of the op's kind declare (KIND_ORDER)."""
    return KIND_ORDER.get(op.kind)


def access(op: Op, slot: int, order: str | None = REFERENCE) -> Access | None:
    """The access order `order` (the op's kernel's declared clause) of input `slot` against the
    output, or None (no overlap allowed)."""
    if order == REFERENCE:
        order = reference_access(op)
    decl = ORDERS.get(order) if order is not None else None
    if decl is None or len(op.outputs) != 1 or slot >= len(op.inputs):
        return None
    t = op.inputs[slot]
    if t is None or not t.in_arena:
        return None
    return decl(op, slot)


def shift_bounds(acc: Access) -> tuple[int, int]:
    """(forward, backward) shift bounds implied by the unit sequence (see module docstring)."""
    if acc.units == 0:
        return INF, -INF
    # bytes still to be read when unit u stores: units after u (staged) or from u on (unstaged)
    later_lo = np.minimum.accumulate(acc.r_lo[::-1])[::-1]
    earlier_hi = np.maximum.accumulate(acc.r_hi)
    if acc.staged:
        later_lo = np.append(later_lo[1:], INF)
        earlier_hi = np.insert(earlier_hi[:-1], 0, -INF)
    forward = int(np.min(later_lo - acc.w_hi))
    backward = int(np.max(earlier_hi - acc.w_lo))
    return (INF if forward > INF // 2 else forward), (-INF if backward < -INF // 2 else backward)


def rules(op: Op, order: str | None = REFERENCE) -> list[Rule]:
    """Every input of `op` its output may overlap under access order `order`, with the shift bounds."""
    if order == REFERENCE:
        order = reference_access(op)
    found = []
    for slot in range(len(op.inputs)):
        acc = access(op, slot, order)
        if acc is None:
            continue
        forward, backward = shift_bounds(acc)
        found.append(Rule(op, slot, op.inputs[slot], op.outputs[0], forward, backward, acc.pattern))
    return found
