"""Helpers shared by the lowerings: int8 quantization checks, window geometry, requantization."""

from __future__ import annotations

import numpy as np

from .. import quant
from ..errors import ModelError, UnsupportedError
from ..ir import DType, Op, Tensor, own_output
from ..ops.common import window_pads
from ..quant import quantize_multiplier
from .call import ConstArray

ADD_LEFT_SHIFT = 20  # TFLM's int8 ADD/SUB headroom


def per_tensor_int8(t: Tensor, op: Op, what: str) -> tuple[float, int]:
    """(scale, zero point) of an int8 activation tensor quantized per tensor."""
    if t.dtype != DType.INT8 or t.quant is None or len(t.quant.scale) != 1:
        raise UnsupportedError(f"{op.where} '{op.name}': {what} '{t.name}' must be int8 with one "
                               f"scale and zero point")
    return float(t.quant.scale[0]), int(t.quant.zero_point[0])


def qp(t: Tensor, op: Op) -> tuple[float, int]:
    """(scale, zero point) of a per-tensor quantized tensor."""
    if t.quant is None or len(t.quant.scale) != 1:
        raise UnsupportedError(f"{op.where} '{op.name}': tensor '{t.name}' needs per-tensor quantization")
    return float(t.quant.scale[0]), int(t.quant.zero_point[0])


def filter_scales(w: Tensor, op: Op, axis: int) -> tuple[float, ...]:
    """The int8 filter's scales: one, or one per output channel along `axis`."""
    if w.dtype != DType.INT8 or w.quant is None or not w.quant.scale:
        raise UnsupportedError(f"{op.where} '{op.name}': filter '{w.name}' must be int8 and quantized")
    scales = tuple(float(s) for s in w.quant.scale)
    if len(scales) > 1 and (w.quant.axis != axis or len(scales) != w.shape[axis]):
        raise ModelError(f"{op.where} '{op.name}': filter '{w.name}' has {len(scales)} scales on axis "
                         f"{w.quant.axis}; expected one per output channel on axis {axis}")
    return scales


def bias_of(op: Op) -> Tensor | None:
    return op.inputs[2] if len(op.inputs) > 2 else None


def float_bias(op: Op) -> ConstArray | str:
    b = bias_of(op)
    return "NULL" if b is None else ConstArray("bias", np.asarray(b.data, np.float32).reshape(-1))


def window(op: Op, kh: int, kw: int, dilation_h: int = 1, dilation_w: int = 1) -> dict[str, int]:
    """Geometry fields shared by the convolution and pooling params (NHWC input and output),
    with TFLite's padding: SAME puts the smaller half of the total before the first row."""
    n, in_h, in_w, _ = op.inputs[0].shape
    _, out_h, out_w, _ = own_output(op).shape
    a = op.attrs
    # the padding after the last row / column needs no field: taps outside the image are skipped
    pad_h, _, pad_w, _ = window_pads(op)
    return dict(batches=n, in_h=in_h, in_w=in_w, out_h=out_h, out_w=out_w,
                stride_h=a.stride_h, stride_w=a.stride_w, pad_h=pad_h, pad_w=pad_w)


def conv_window(op: Op, kh: int, kw: int) -> dict[str, int]:
    a = op.attrs
    g = window(op, kh, kw, a.dilation_h, a.dilation_w)
    return dict(g, in_c=op.inputs[0].shape[3], out_c=own_output(op).shape[3], k_h=kh, k_w=kw,
                dilation_h=a.dilation_h, dilation_w=a.dilation_w)


def requant_params(op: Op, w: Tensor, axis: int, taps: np.ndarray) -> dict[str, object]:
    """int8 output stage of a convolution: zero points, clamp, per-channel multipliers/shifts
    and the bias with the input offset folded in (taps: weights as [out_c, taps])."""
    x, y = op.inputs[0], own_output(op)
    in_scale, in_zp = per_tensor_int8(x, op, "input")
    out_scale, out_zp = per_tensor_int8(y, op, "output")
    channels = taps.shape[0]
    mult, shift = quant.conv_multipliers(in_scale, filter_scales(w, op, axis), out_scale, channels)
    b = bias_of(op)
    try:
        bias = quant.fold_input_offset(None if b is None else b.data, taps, in_zp)
    except OverflowError as e:
        raise UnsupportedError(f"{op.where} '{op.name}': {e}") from None
    lo, hi = quant.activation_range(op.attrs.activation, y)
    return dict(in_zero_point=in_zp, out_zero_point=out_zp, act_min=lo, act_max=hi,
                bias=ConstArray("bias", bias), mult=ConstArray("mult", mult),
                shift=ConstArray("shift", shift))


def float_act(op: Op) -> dict[str, float]:
    lo, hi = quant.activation_range_float(op.attrs.activation)
    return dict(act_min=lo, act_max=hi)


def depth_multiplier(op: Op) -> int:
    """Output channels per input channel, from the shapes (some converters leave the
    option at 0 or 1 when it is not)."""
    ic, oc = op.inputs[0].shape[3], op.inputs[1].shape[3]
    return oc // ic


def _smaller_than_one(real: float, what: str, op: Op) -> tuple[int, int]:
    if not 0.0 < real < 1.0:
        raise UnsupportedError(f"{op.where} '{op.name}': {what} multiplier {real:g} is outside (0, 1) "
                               "(TFLM rejects these scales)")
    return quantize_multiplier(real)


def addsub_multipliers(op: Op, s1: float, s2: float, s_out: float, left_shift: int = ADD_LEFT_SHIFT,
                       double: bool = False) -> list[tuple[int, int]]:
    """Per-input and output multipliers: ADD computes them in double, int8 SUB in float (as TFLM)."""
    f32 = np.float32
    if op.kind == "ADD" or double:
        twice = 2.0 * max(s1, s2)
        reals = (s1 / twice, s2 / twice, twice / ((1 << left_shift) * s_out))
    else:
        twice = f32(2.0) * max(f32(s1), f32(s2))
        reals = (float(f32(s1) / twice), float(f32(s2) / twice),
                 float(twice / (f32(1 << left_shift) * f32(s_out))))
    return [_smaller_than_one(r, w, op) for r, w in zip(reals, ("input 1", "input 2", "output"))]


# -- scratch of the fused reductions (ops/internal.py CONV_GAP, CONV_POOL) ---------------------

def ring_rows(op: Op) -> int:
    """Conv rows a row-wise pool keeps: one pool window's height (at most the conv's rows)."""
    return min(op.attrs.reducer.attrs.filter_h, op.attrs.conv.outputs[0].shape[1])


def gap_scratch(op: Op) -> int:
    """One int32 sum per channel of the conv output."""
    return 4 * op.attrs.conv.outputs[0].shape[3]


def pool_scratch(op: Op) -> int:
    """The ring of conv rows."""
    mid = op.attrs.conv.outputs[0]
    _, _, out_w, channels = mid.shape
    return ring_rows(op) * out_w * channels * mid.dtype.size
