"""AVERAGE_POOL_2D and MAX_POOL_2D over NHWC."""

from __future__ import annotations

from ..ir import DType, Op
from .registry import OpDef, register
from .attrs import PoolAttrs
from .common import activation_supported, quantized_if_int8, rank, window_out


def _infer(op: Op):
    n, _, _, c = op.inputs[0].shape
    return [((n, *window_out(op), c), op.inputs[0].dtype)]


def _window(op: Op) -> str | None:
    a = op.attrs
    if min(a.filter_h, a.filter_w, a.stride_h, a.stride_w) < 1:
        return "filter size and strides must be >= 1"
    if any(d <= 0 for d in op.outputs[0].shape):
        return f"output shape {list(op.outputs[0].shape)} is empty"
    return None


def _same_quant(op: Op) -> str | None:
    i = op.inputs[0]
    o = op.fused[0].input if op.fused else op.outputs[0]  # a fused epilogue may requantize after
    if i.quant and o.quant and (i.quant.scale != o.quant.scale or i.quant.zero_point != o.quant.zero_point):
        return "input and output quantization must match (TFLite requires it for pooling)"
    return None


_CHECKS = (rank(4), _window, quantized_if_int8, activation_supported, _same_quant)
TYPES = frozenset({DType.INT8, DType.INT16, DType.FLOAT32})
register(
    OpDef("AVERAGE_POOL_2D", PoolAttrs, _infer, _CHECKS, dtypes=TYPES),
    OpDef("MAX_POOL_2D", PoolAttrs, _infer, _CHECKS, dtypes=TYPES),
)
