"""Lowering of CONV_2D and DEPTHWISE_CONV_2D (int8 and float32) to runtime_c kernels."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import quant, views
from ..errors import ModelError, UnsupportedError
from ..ir import DType, Op, Tensor
from ..ops.common import window_pads
from ..passes.epilogue import own_output
from . import Call, ConstArray, fast, lowering
from .epilogue import epilogue_params, fused_kernels, operands


@dataclass(frozen=True)
class Kernel:
    """One runtime_c kernel an op may lower to; `fits` says whether it can run this op."""

    name: str
    params_type: str
    file: str
    fits: Callable[[Op], bool] = lambda op: True
    reversible: bool = False  # has a `reverse` params field: can run last pixel first
    # Fast variants (lower/fast.py): reference params -> (this kernel's params, scratch bytes).
    prepare: Callable[[Op, dict], tuple[dict, int]] | None = None


def pick(table: list[Kernel], op: Op) -> Kernel:
    """The first kernel of `table` that fits `op`: specialised variants go first, the generic
    reference kernel last (it fits every op the constraints let through). An op with a fused
    epilogue picks among the reference kernel's fused variants (lower/epilogue.py). An op
    writing a strided slice (an eliminated concat, microfuse/views.py) needs a kernel with
    an `out_stride` field: the reference kernels, and the fast kernels' `_strided` entries."""
    if op.fused:  # the fused variants of every kernel in the table, fast ones (lower/fast.py) first
        table = [variant for k in table if k.prepare is not None or k is table[-1]
                 for variant in fused_kernels(k)]
    for k in table:
        if k.fits(op):
            return k
    steps = "+".join(step.label for step in op.fused)
    raise UnsupportedError(f"{op.where} '{op.name}': no kernel variant fits"
                           + (f" the fused epilogue {steps}" if steps else ""))


CONV_S8 = [Kernel("mf_conv2d_s8_gemm", "mf_conv2d_s8_gemm_params", "mf_conv2d_s8_gemm.c",
                  fast.dense(fast.conv_gemm_fits), reversible=True, prepare=fast.conv_gemm_prepare),
           Kernel("mf_conv2d_s8_gemm_strided", "mf_conv2d_s8_gemm_params", "mf_conv2d_s8_gemm_strided.c",
                  fast.strided(fast.conv_gemm_fits), reversible=True, prepare=fast.conv_gemm_prepare),
           Kernel("mf_conv2d_s8", "mf_conv2d_s8_params", "mf_conv2d_s8.c")]
CONV_F32 = [Kernel("mf_conv2d_f32", "mf_conv2d_f32_params", "mf_conv2d_f32.c")]
DWCONV_S8 = [Kernel("mf_dwconv2d_s8_dsp", "mf_dwconv2d_s8_dsp_params", "mf_dwconv2d_s8_dsp.c",
                    fast.dense(fast.dw_fits), reversible=True, prepare=fast.dw_prepare),
             Kernel("mf_dwconv2d_s8_dsp_strided", "mf_dwconv2d_s8_dsp_params", "mf_dwconv2d_s8_dsp_strided.c",
                    fast.strided(fast.dw_fits), reversible=True, prepare=fast.dw_prepare),
             Kernel("mf_dwconv2d_s8", "mf_dwconv2d_s8_params", "mf_dwconv2d_s8.c", reversible=True)]
DWCONV_F32 = [Kernel("mf_dwconv2d_f32", "mf_dwconv2d_f32_params", "mf_dwconv2d_f32.c")]


# -- shared checks and helpers --------------------------------------------------------------------

def per_tensor_int8(t: Tensor, op: Op, what: str) -> tuple[float, int]:
    """(scale, zero point) of an int8 activation tensor quantized per tensor."""
    if t.dtype != DType.INT8 or t.quant is None or len(t.quant.scale) != 1:
        raise UnsupportedError(f"{op.where} '{op.name}': {what} '{t.name}' must be int8 with one "
                               f"scale and zero point")
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


def make_call(kernel: Kernel, op: Op, params: dict[str, object]) -> Call:
    scratch = 0
    if kernel.prepare is not None:
        params, scratch = kernel.prepare(op, params)
    if kernel.reversible:
        params = {**params, "reverse": 0}  # the build sets 1 if the plan runs it backward
    if views.strided(op.outputs[0]):
        params = {**params, "out_stride": views.element_stride(op.outputs[0])}
    inputs = [op.inputs[0]]
    if op.fused:  # a fused variant: the plain kernel's params (`k.*`), the epilogue's (`ep.*`)
        params = {**{f"k.{key}": value for key, value in params.items()}, **epilogue_params(op)}
        inputs += operands(op)  # the residual operand, after the main input
    sources = [op, *(src for step in op.fused for src in step.sources)]
    reverse_key = next((key for key in params if key in ("reverse", "k.reverse")), None)
    return Call(kernel.name, kernel.params_type, params, inputs, [op.outputs[0]], sources,
                (kernel.file,), scratch=scratch, reverse_key=reverse_key)


# -- CONV_2D ----------------------------------------------------------------------------------------

@lowering("CONV_2D", DType.INT8)
def conv2d_s8(op: Op) -> Call:
    w = op.inputs[1]
    oc, kh, kw, _ = w.shape
    weights = np.asarray(w.data, np.int8)  # OHWI, the kernel's layout
    params = dict(conv_window(op, kh, kw), **requant_params(op, w, 0, weights.reshape(oc, -1)),
                  weights=ConstArray("weights", weights))
    return make_call(pick(CONV_S8, op), op, params)


@lowering("CONV_2D", DType.FLOAT32)
def conv2d_f32(op: Op) -> Call:
    w = op.inputs[1]
    _, kh, kw, _ = w.shape
    params = dict(conv_window(op, kh, kw), **float_act(op),
                  weights=ConstArray("weights", np.asarray(w.data, np.float32)), bias=float_bias(op))
    return make_call(pick(CONV_F32, op), op, params)


# -- DEPTHWISE_CONV_2D --------------------------------------------------------------------------------

def depth_multiplier(op: Op) -> int:
    """Output channels per input channel, from the shapes (some converters leave the
    option at 0 or 1 when it is not)."""
    ic, oc = op.inputs[0].shape[3], op.inputs[1].shape[3]
    return oc // ic


@lowering("DEPTHWISE_CONV_2D", DType.INT8)
def dwconv2d_s8(op: Op) -> Call:
    w = op.inputs[1]
    _, kh, kw, oc = w.shape
    weights = np.asarray(w.data, np.int8).reshape(kh, kw, oc)  # 1HWO, the kernel's layout
    params = dict(conv_window(op, kh, kw), depth_multiplier=depth_multiplier(op),
                  **requant_params(op, w, 3, weights.reshape(-1, oc).T),
                  weights=ConstArray("weights", weights))
    return make_call(pick(DWCONV_S8, op), op, params)


@lowering("DEPTHWISE_CONV_2D", DType.FLOAT32)
def dwconv2d_f32(op: Op) -> Call:
    w = op.inputs[1]
    _, kh, kw, oc = w.shape
    params = dict(conv_window(op, kh, kw), depth_multiplier=depth_multiplier(op), **float_act(op),
                  weights=ConstArray("weights", np.asarray(w.data, np.float32).reshape(kh, kw, oc)),
                  bias=float_bias(op))
    return make_call(pick(DWCONV_F32, op), op, params)
