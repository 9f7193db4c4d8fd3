"""Lowering of TRANSPOSE_CONV (int8 per-channel, float32) to runtime_c/src/mf_transpose_conv.c."""

from __future__ import annotations

import numpy as np

from .. import quant
from ..ir import DType, Op
from ..ops.tconv import BIAS, FILTER, INPUT, pads
from .call import Call, ConstArray
from .common import filter_scales, float_act, per_tensor_int8
from .kernels import KernelSpec, declare, make
from .registry import lowering

_GEOMETRY = ("batches", "in_h", "in_w", "in_c", "out_h", "out_w", "out_c", "k_h", "k_w", "stride_h",
             "stride_w", "pad_h", "pad_w")
declare({"mf_transpose_conv_s8_params": (*_GEOMETRY, "in_zero_point", "out_zero_point", "act_min", "act_max",
                                         "weights", "bias", "mult", "shift"),
         "mf_transpose_conv_f32_params": (*_GEOMETRY, "act_min", "act_max", "weights", "bias")},
        KernelSpec("mf_transpose_conv_s8", "mf_transpose_conv_s8_params", "mf_transpose_conv.c"),
        KernelSpec("mf_transpose_conv_f32", "mf_transpose_conv_f32_params", "mf_transpose_conv.c"))


def geometry(op: Op) -> dict[str, int]:
    x, y, w = op.inputs[INPUT], op.outputs[0], op.inputs[FILTER]
    n, in_h, in_w, in_c = x.shape
    _, out_h, out_w, out_c = y.shape
    pad_h, pad_w = pads(op)
    return dict(batches=n, in_h=in_h, in_w=in_w, in_c=in_c, out_h=out_h, out_w=out_w, out_c=out_c,
                k_h=w.shape[1], k_w=w.shape[2], stride_h=op.attrs.stride_h, stride_w=op.attrs.stride_w,
                pad_h=pad_h, pad_w=pad_w)


def bias_data(op: Op, dtype) -> np.ndarray | None:
    b = op.inputs[BIAS] if len(op.inputs) > BIAS else None
    return None if b is None else np.asarray(b.data).astype(dtype).reshape(-1)


def _call(name: str, op: Op, params: dict) -> Call:
    return make(name, params, [op.inputs[INPUT]], [op.outputs[0]], [op])


@lowering("TRANSPOSE_CONV", DType.INT8)
def tconv_s8(op: Op, lw) -> Call:
    x, y, w = op.inputs[INPUT], op.outputs[0], op.inputs[FILTER]
    in_scale, in_zp = per_tensor_int8(x, op, "input")
    out_scale, out_zp = per_tensor_int8(y, op, "output")
    channels = w.shape[0]
    # TFLM's PopulateConvolutionQuantizationParams, with kTfLiteActNone: the full int8 range
    mult, shift = quant.conv_multipliers(in_scale, filter_scales(w, op, 0), out_scale, channels)
    bias = bias_data(op, np.int32)
    params = dict(geometry(op), in_zero_point=in_zp, out_zero_point=out_zp, act_min=-128, act_max=127,
                  weights=ConstArray("weights", np.asarray(w.data, np.int8)),
                  bias=ConstArray("bias", np.zeros(channels, np.int32) if bias is None else bias),
                  mult=ConstArray("mult", mult), shift=ConstArray("shift", shift))
    return _call("mf_transpose_conv_s8", op, params)


@lowering("TRANSPOSE_CONV", DType.FLOAT32)
def tconv_f32(op: Op, lw) -> Call:
    bias = bias_data(op, np.float32)
    params = dict(geometry(op), **float_act(op),
                  weights=ConstArray("weights", np.asarray(op.inputs[FILTER].data, np.float32)),
                  bias="NULL" if bias is None else ConstArray("bias", bias))
    return _call("mf_transpose_conv_f32", op, params)
