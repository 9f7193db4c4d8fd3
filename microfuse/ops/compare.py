"""Comparisons and logical ops of two broadcast inputs (EQUAL ... LOGICAL_OR): bool outputs."""

from __future__ import annotations

from ..ir import DType, Op
from .elementwise import broadcast_shape
from .math import int8_per_tensor
from .registry import OpDef, register

F32, I8, I32, I64, BOOL = DType.FLOAT32, DType.INT8, DType.INT32, DType.INT64, DType.BOOL
BROADCAST_RANK = 4  # TFLM's Broadcast4DSlow*: inputs of different shapes up to rank 4

COMPARE_TYPES: dict[str, frozenset[DType]] = {
    **{k: frozenset({F32, I32, I64, I8, BOOL}) for k in ("EQUAL", "NOT_EQUAL")},
    **{k: frozenset({F32, I32, I64, I8}) for k in ("GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL")},
    **{k: frozenset({BOOL}) for k in ("LOGICAL_AND", "LOGICAL_OR")},
}


def _infer_bool(op: Op):
    return [(broadcast_shape(op.inputs[0].shape, op.inputs[1].shape), BOOL)]


def broadcast_pair(op: Op, rank: int = BROADCAST_RANK) -> str | None:
    """Two inputs of one type that broadcast; of different shapes only up to TFLM's rank."""
    if len(op.inputs) != 2 or len(op.outputs) != 1:
        return f"expects 2 inputs and 1 output, has {len(op.inputs)} and {len(op.outputs)}"
    a, b = op.inputs
    if a.dtype != b.dtype:
        return f"operand types differ ({a.dtype} and {b.dtype})"
    try:
        shape = broadcast_shape(a.shape, b.shape)
    except ValueError as e:
        return str(e)
    if a.shape != b.shape and len(shape) > rank:
        return f"broadcasting at rank {len(shape)} is above TFLM's {rank}"
    if a.is_const and b.is_const:
        return "both operands are constants (not folded)"
    return None


def scales_below_one(op: Op) -> str | None:
    """TFLM's int8 comparison rescales each input by its scale with QuantizeMultiplierSmallerThanOneExp."""
    for t in op.inputs:
        if t.dtype == I8 and t.quant is not None and not 0 < float(t.quant.scale[0]) < 1:
            return f"int8 input '{t.name}' has scale {float(t.quant.scale[0]):g}; TFLM needs a scale below 1"
    return None


register(*(OpDef(kind, None, _infer_bool, (broadcast_pair, int8_per_tensor, scales_below_one), dtypes=types)
           for kind, types in COMPARE_TYPES.items()))
