"""Lowering of 16x8 CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and TRANSPOSE_CONV (int16 data,
int8 weights, int64 or int32 bias) to runtime_c/src/mf_conv_s16.c and mf_transpose_conv.c."""

from __future__ import annotations

import numpy as np

from .. import quant, views
from ..errors import UnsupportedError
from ..ir import DType, Op, Tensor, own_output
from ..ops.tconv import BIAS, FILTER, INPUT
from .call import Call, ConstArray
from .common import conv_window, depth_multiplier, filter_scales
from .fc import rows
from .kernels import KernelSpec, declare, make
from .registry import lowering
from .tconv import geometry as tconv_geometry

_CONV = ("batches", "in_h", "in_w", "in_c", "out_h", "out_w", "out_c", "k_h", "k_w", "stride_h", "stride_w",
         "dilation_h", "dilation_w", "pad_h", "pad_w")
_OUT = ("act_min", "act_max", "wide", "weights", "bias", "mult", "shift", "out_stride")
declare({"mf_conv2d_s16_params": (*_CONV, *_OUT),
         "mf_dwconv2d_s16_params": (*_CONV, "depth_multiplier", *_OUT),
         "mf_fc_s16_params": ("rows", "depth", "units", *_OUT),
         "mf_transpose_conv_s16_params": (*_CONV[:11], "pad_h", "pad_w", "act_min", "act_max", "weights", "bias",
                                          "mult", "shift")},
        KernelSpec("mf_conv2d_s16", "mf_conv2d_s16_params", "mf_conv_s16.c"),
        KernelSpec("mf_dwconv2d_s16", "mf_dwconv2d_s16_params", "mf_conv_s16.c"),
        KernelSpec("mf_fc_s16", "mf_fc_s16_params", "mf_conv_s16.c"),
        KernelSpec("mf_transpose_conv_s16", "mf_transpose_conv_s16_params", "mf_transpose_conv.c"))
# the fast kernel (mf_conv16_fast.h): SMLAD on int16 pairs, the weights blocked by blocked_weights()
declare({"mf_conv2d_s16_dsp_params": (*_CONV, "act_min", "act_max", "wide", "narrow", *_OUT[3:])},
        KernelSpec("mf_conv2d_s16_dsp", "mf_conv2d_s16_dsp_params", "mf_conv_s16_dsp.c", mac_cost=1.4))


def blocked_weights(w: np.ndarray) -> np.ndarray:
    """OHWI int8 weights widened to int16 in mf_conv2d_s16_dsp's layout (mf_conv16_fast.h): blocks
    of 4 output channels (zero-padded); per window row, per pair (r, r+1) of its k_w * in_c values,
    [c0 r, c0 r+1, c1 r, c1 r+1, c2 r, c2 r+1, c3 r, c3 r+1]; an odd last value: [c0, c1, c2, c3]."""
    oc, kh, kw, ic = w.shape
    nb, run = -(-oc // 4), kw * ic
    pairs = run // 2
    padded = np.zeros((nb * 4, kh, run), np.int16)
    padded[:oc] = w.reshape(oc, kh, run)
    t = padded.reshape(nb, 4, kh, run).transpose(0, 2, 3, 1)  # (block, ky, r, c)
    p = t[:, :, :2 * pairs].reshape(nb, kh, pairs, 2, 4).transpose(0, 1, 2, 4, 3)  # (..., pair, c, r & 1)
    parts = [p.reshape(nb, kh, 8 * pairs)] + ([t[:, :, run - 1]] if run % 2 else [])
    return np.ascontiguousarray(np.concatenate(parts, axis=2)).reshape(-1)


def _fast(params: dict, w: np.ndarray, lw) -> tuple[str | None, dict]:
    """The fast kernel above --optimize size (no scratch, no arena cost: every level but size)."""
    if lw.level == "size" or params["dilation_w"] != 1:  # a window row must be adjacent pixels
        return None, params
    # int32 sums are exact when even all-extreme inputs cannot overflow them (bias added in int64):
    # over the whole window (`narrow`), else over one window row, which the kernel then moves to int64
    _, kh, kw, ic = w.shape
    peak = 32768 * int(np.abs(w.astype(np.int64)).max(initial=0))
    if kw * ic * peak >= 2 ** 31:
        return None, params
    bound = kh * kw * ic * peak
    return "mf_conv2d_s16_dsp", {**params, "narrow": int(bound < 2 ** 31),
                                 "weights": ConstArray("weights", blocked_weights(w))}


def _scale(t: Tensor, op: Op, what: str) -> float:
    if t.quant is None or len(t.quant.scale) != 1:
        raise UnsupportedError(f"{op.where} '{op.name}': {what} '{t.name}' needs one scale")
    return float(t.quant.scale[0])


def output_stage(op: Op, x: Tensor, w: Tensor, axis: int, channels: int, bias: Tensor | None,
                 dense: bool = False) -> dict[str, object]:
    """Multipliers (TFLM's PopulateConvolutionQuantizationParams; a per-tensor FC: its float32
    product of scales), the bias widened to int64 and the clamp of a 16x8 op."""
    if op.fused:
        raise UnsupportedError(f"{op.where} '{op.name}': no 16x8 kernel variant fits a fused epilogue")
    y = own_output(op)
    in_scale, out_scale = _scale(x, op, "input"), _scale(y, op, "output")
    scales = filter_scales(w, op, axis)
    if dense and len(scales) == 1:
        m, s = quant.dense_multiplier(in_scale, scales[0], out_scale)
        mult, shift = np.full(channels, m, np.int32), np.full(channels, s, np.int32)
    else:
        mult, shift = quant.conv_multipliers(in_scale, scales, out_scale, channels)
    data = np.zeros(channels, np.int64) if bias is None else np.asarray(bias.data).astype(np.int64).reshape(-1)
    lo, hi = quant.activation_range(getattr(op.attrs, "activation", "NONE"), y)
    return dict(act_min=lo, act_max=hi, bias=ConstArray("bias", data), mult=ConstArray("mult", mult),
                shift=ConstArray("shift", shift))


def _wide(bias: Tensor | None) -> int:
    """TFLM runs the int64 path unless the bias is int32."""
    return int(bias is None or bias.dtype != DType.INT32)


def _call(name: str, op: Op, x: Tensor, params: dict) -> Call:
    return make(name, params, [x], [op.outputs[0]], [op])


@lowering("CONV_2D", DType.INT16)
def conv2d_s16(op: Op, lw) -> Call:
    x, w = op.inputs[0], op.inputs[1]
    bias = op.inputs[2] if len(op.inputs) > 2 else None
    oc, kh, kw, _ = w.shape
    weights = np.asarray(w.data, np.int8)
    params = dict(conv_window(op, kh, kw), **output_stage(op, x, w, 0, oc, bias), wide=_wide(bias),
                  weights=ConstArray("weights", weights), out_stride=views.element_stride(op.outputs[0]))
    fast, fast_params = _fast(params, weights, lw)
    return _call(fast, op, x, fast_params) if fast else _call("mf_conv2d_s16", op, x, params)


@lowering("DEPTHWISE_CONV_2D", DType.INT16)
def dwconv2d_s16(op: Op, lw) -> Call:
    x, w = op.inputs[0], op.inputs[1]
    bias = op.inputs[2] if len(op.inputs) > 2 else None
    _, kh, kw, oc = w.shape
    params = dict(conv_window(op, kh, kw), depth_multiplier=depth_multiplier(op),
                  **output_stage(op, x, w, 3, oc, bias), wide=_wide(bias),
                  weights=ConstArray("weights", np.asarray(w.data, np.int8).reshape(kh, kw, oc)),
                  out_stride=views.element_stride(op.outputs[0]))
    return _call("mf_dwconv2d_s16", op, x, params)


@lowering("FULLY_CONNECTED", DType.INT16)
def fc_s16(op: Op, lw) -> Call:
    x, w = op.inputs[0], op.inputs[1]
    bias = op.inputs[2] if len(op.inputs) > 2 else None
    if w.dtype != DType.INT8 or w.quant is None or any(int(z) for z in w.quant.zero_point):
        raise UnsupportedError(f"{op.where} '{op.name}': 16x8 weights '{w.name}' must be int8 with zero point 0")
    weights = np.asarray(w.data, np.int8)
    stage = output_stage(op, x, w, 0, w.shape[0], bias, dense=True)
    params = dict(rows(op), **stage, wide=_wide(bias), weights=ConstArray("weights", weights),
                  out_stride=views.element_stride(op.outputs[0]))
    (units, depth), n = w.shape, params["rows"]
    # the fast kernel runs it as a 1x1 convolution over `rows` one-pixel images
    conv = dict(batches=n, in_h=1, in_w=1, in_c=depth, out_h=1, out_w=1, out_c=units, k_h=1, k_w=1,
                stride_h=1, stride_w=1, dilation_h=1, dilation_w=1, pad_h=0, pad_w=0)
    fast, fast_params = _fast({**conv, **{k: params[k] for k in _OUT}}, weights.reshape(units, 1, 1, depth), lw)
    return _call(fast, op, x, fast_params) if fast else _call("mf_fc_s16", op, x, params)


@lowering("TRANSPOSE_CONV", DType.INT16)
def tconv_s16(op: Op, lw) -> Call:
    x, w = op.inputs[INPUT], op.inputs[FILTER]
    bias = op.inputs[BIAS] if len(op.inputs) > BIAS else None
    stage = output_stage(op, x, w, 0, w.shape[0], bias)
    stage.update(act_min=-32768, act_max=32767)  # transpose_conv.cc: kTfLiteActNone
    params = dict(tconv_geometry(op), **stage, weights=ConstArray("weights", np.asarray(w.data, np.int8)))
    return _call("mf_transpose_conv_s16", op, x, params)
