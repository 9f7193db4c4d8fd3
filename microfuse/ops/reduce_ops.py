"""Reductions beside MEAN: REDUCE_MAX/MIN/ALL, SUM, ARG_MAX/ARG_MIN, L2_NORMALIZATION, LOG_SOFTMAX, L2_POOL_2D."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..ir import DType, Op
from .attrs import Attrs, NoAttrs, PoolAttrs, ReducerAttrs
from .common import activation_supported, const_input, quantized_if_int8, rank, window_out
from .registry import OpDef, register
from .shape import _infer_mean

INT8, FLOAT32 = DType.INT8, DType.FLOAT32
REDUCE_DIMS = 6  # mf_mean_params' arrays (MF_MEAN_DIMS)
# TFLite's TensorType codes for ArgMaxOptions.output_type
OUTPUT_TYPES = {2: DType.INT32, 4: DType.INT64}


@dataclass(frozen=True)
class ArgAttrs(Attrs):
    output_type: int = 4  # int64 unless the converter says int32


@dataclass(frozen=True)
class L2NormAttrs(Attrs):
    activation: str = "NONE"
    OPTIONS: ClassVar = {"activation": "fused_activation_function"}


def _axes(op: Op) -> list[int]:
    return [int(a) for a in np.asarray(op.inputs[1].data).reshape(-1)]


def reduce_rank(op: Op) -> str | None:
    r = len(op.inputs[0].shape)
    if not 1 <= r <= REDUCE_DIMS:
        return f"input of rank {r} is not supported (1 to {REDUCE_DIMS})"
    if any(not -r <= a < r for a in _axes(op)):
        return f"axes {_axes(op)} out of range for rank {r}"
    if any(op.inputs[0].shape[a] == 0 for a in _axes(op)):
        return "reduction over an empty axis"
    return None


def same_quant(op: Op) -> str | None:
    """TFLM's int8 REDUCE_MAX / REDUCE_MIN compare stored values: input and output must agree."""
    i, o = op.inputs[0], op.outputs[0]
    if i.dtype == INT8 and i.quant and o.quant and (i.quant.scale[0] != o.quant.scale[0]
                                                    or i.quant.zero_point[0] != o.quant.zero_point[0]):
        return "int8 input and output quantization must match (TFLM requires it)"
    return None


def _infer_arg(op: Op):
    shape, axis = op.inputs[0].shape, _axes(op)[0] % len(op.inputs[0].shape)
    return [(tuple(d for i, d in enumerate(shape) if i != axis), OUTPUT_TYPES.get(op.attrs.output_type))]


def _arg_checks(op: Op) -> str | None:
    x, ax, out = op.inputs[0], op.inputs[1], op.outputs[0]
    if ax.dtype != DType.INT32 or ax.elements != 1:
        return "axis must be one int32 value (TFLM's only axis type)"
    if not -len(x.shape) <= _axes(op)[0] < len(x.shape):
        return f"axis {_axes(op)[0]} out of range for rank {len(x.shape)}"
    if out.dtype != DType.INT32:
        return f"output type {out.dtype} is not supported (TFLM computes int32 only)"
    return None


def _infer_same(op: Op):
    return [(op.inputs[0].shape, op.inputs[0].dtype)]


def _l2norm_checks(op: Op) -> str | None:
    if len(op.inputs[0].shape) > 4:
        return f"input of rank {len(op.inputs[0].shape)} (TFLM takes at most 4)"
    if op.attrs.activation != "NONE":
        return f"fused activation {op.attrs.activation} is not supported (TFLM supports none)"
    x, o = op.inputs[0], op.outputs[0]
    if x.dtype == INT8 and o.quant and (o.quant.scale[0] != 1 / 128 or o.quant.zero_point[0] != 0):
        return "int8 output must have scale 1/128 and zero point 0 (TFLM requires it)"
    return None


def _log_softmax_checks(op: Op) -> str | None:
    x, o = op.inputs[0], op.outputs[0]
    if x.dtype == INT8 and o.quant and (o.quant.scale[0] != 16 / 256 or o.quant.zero_point[0] != 127):
        return "int8 output must have scale 16/256 and zero point 127 (TFLM requires it)"
    return None


def _infer_pool(op: Op):
    n, _, _, c = op.inputs[0].shape
    return [((n, *window_out(op), c), op.inputs[0].dtype)]


def _pool_window(op: Op) -> str | None:
    a = op.attrs
    if min(a.filter_h, a.filter_w, a.stride_h, a.stride_w) < 1:
        return "filter size and strides must be >= 1"
    return None


_REDUCE = (const_input(1, "axes"), reduce_rank, quantized_if_int8)
F32 = frozenset({FLOAT32})
register(
    OpDef("REDUCE_MAX", ReducerAttrs, _infer_mean, (*_REDUCE, same_quant)),
    OpDef("REDUCE_MIN", ReducerAttrs, _infer_mean, (*_REDUCE, same_quant)),
    OpDef("REDUCE_ALL", ReducerAttrs, _infer_mean, _REDUCE, dtypes=frozenset({DType.BOOL})),
    OpDef("SUM", ReducerAttrs, _infer_mean, _REDUCE, dtypes=frozenset({INT8, DType.INT16, FLOAT32})),
    OpDef("ARG_MAX", ArgAttrs, _infer_arg, (const_input(1, "axis"), _arg_checks)),
    OpDef("ARG_MIN", ArgAttrs, _infer_arg, (const_input(1, "axis"), _arg_checks)),
    OpDef("L2_NORMALIZATION", L2NormAttrs, _infer_same, (quantized_if_int8, _l2norm_checks)),
    OpDef("LOG_SOFTMAX", NoAttrs, _infer_same, (quantized_if_int8, _log_softmax_checks)),
    OpDef("L2_POOL_2D", PoolAttrs, _infer_pool, (rank(4), _pool_window, activation_supported), dtypes=F32),
)
