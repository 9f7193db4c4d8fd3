"""Lowering of FULLY_CONNECTED (int8 per-tensor and per-channel, float32) to runtime_c kernels."""

from __future__ import annotations

import numpy as np

from .. import quant
from ..errors import UnsupportedError
from ..ir import DType, Op, own_output
from .call import Call, ConstArray
from .common import bias_of, filter_scales, float_act, float_bias, per_tensor_int8
from .conv import make_call, pick
from .registry import lowering

FC_S8 = ("mf_fc_s8_dsp8", "mf_fc_s8_dsp", "mf_fc_s8_dsp_strided", "mf_fc_s8")
FC_S8_PC = ("mf_fc_s8_dsp8", "mf_fc_s8_dsp", "mf_fc_s8_dsp_strided", "mf_fc_s8_pc")
FC_F32 = ("mf_fc_f32",)


def rows(op: Op) -> dict[str, int]:
    """The input is read as rows of `depth` values, whatever its shape (TFLite flattens it)."""
    units, depth = op.inputs[1].shape
    return dict(rows=op.inputs[0].elements // depth, depth=depth, units=units)


@lowering("FULLY_CONNECTED", DType.INT8)
def fc_s8(op: Op, lw) -> Call:
    x, w, y = op.inputs[0], op.inputs[1], own_output(op)
    in_scale, in_zp = per_tensor_int8(x, op, "input")
    out_scale, out_zp = per_tensor_int8(y, op, "output")
    scales = filter_scales(w, op, 0)
    if any(int(z) != 0 for z in w.quant.zero_point):
        raise UnsupportedError(f"{op.where} '{op.name}': weights '{w.name}' must be symmetric "
                               f"(zero point 0), got {list(w.quant.zero_point)[:4]}")
    weights = np.asarray(w.data, np.int8)
    b = bias_of(op)
    try:  # a dense layer has no padding: the fold is exact for every row
        bias = quant.fold_input_offset(None if b is None else b.data, weights, in_zp)
    except OverflowError as e:
        raise UnsupportedError(f"{op.where} '{op.name}': {e}") from None
    lo, hi = quant.activation_range(op.attrs.activation, y)
    params = dict(rows(op), out_zero_point=out_zp, act_min=lo, act_max=hi)
    if len(scales) == 1:
        mult, shift = quant.dense_multiplier(in_scale, scales[0], out_scale)
        params.update(mult=mult, shift=shift)
        kernel = pick(FC_S8, op, lw.level)
    else:
        mult_a, shift_a = quant.conv_multipliers(in_scale, scales, out_scale, len(scales))
        params.update(mult=ConstArray("mult", mult_a), shift=ConstArray("shift", shift_a))
        kernel = pick(FC_S8_PC, op, lw.level)
    params.update(weights=ConstArray("weights", weights), bias=ConstArray("bias", bias))
    return make_call(kernel, op, params)


@lowering("FULLY_CONNECTED", DType.FLOAT32)
def fc_f32(op: Op, lw) -> Call:
    w = op.inputs[1]
    if w.dtype != DType.FLOAT32:
        raise UnsupportedError(f"{op.where} '{op.name}': float input with {w.dtype} weights "
                               "(hybrid) is not supported")
    params = dict(rows(op), **float_act(op), weights=ConstArray("weights", np.asarray(w.data, np.float32)),
                  bias=float_bias(op))
    return make_call(pick(FC_F32, op, lw.level), op, params)
