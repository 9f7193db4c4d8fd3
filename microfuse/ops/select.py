"""SELECT_V2: x where the bool condition holds, else y, the three broadcast together (TFLM select.cc)."""

from __future__ import annotations

from ..ir import DType, Op
from .elementwise import broadcast_shape
from .registry import OpDef, register

SELECT_RANK = 5  # BroadcastSelect5DSlow
SELECT_TYPES = frozenset({DType.FLOAT32, DType.INT8})  # of x and y: copied raw (int8 quantization unread)


def _infer_select(op: Op):
    c, x, y = op.inputs
    return [(broadcast_shape(broadcast_shape(c.shape, x.shape), y.shape), x.dtype)]


def _select_operands(op: Op) -> str | None:
    if len(op.inputs) != 3 or len(op.outputs) != 1:
        return f"expects 3 inputs and 1 output, has {len(op.inputs)} and {len(op.outputs)}"
    c, x, y = op.inputs
    if c.dtype != DType.BOOL:
        return f"the condition '{c.name}' has type {c.dtype}, TFLM needs bool"
    if x.dtype != y.dtype or x.dtype not in SELECT_TYPES:
        return f"x and y have types {x.dtype} and {y.dtype}; supported: float32 or int8, both alike"
    try:
        shape = broadcast_shape(broadcast_shape(c.shape, x.shape), y.shape)
    except ValueError as e:
        return str(e)
    if not c.shape == x.shape == y.shape and len(shape) > SELECT_RANK:
        return f"broadcasting at rank {len(shape)} is above TFLM's {SELECT_RANK}"
    if c.is_const:
        return "a constant condition is not supported (fold it)"
    return None


# The registry's dtype check reads the first input (the condition): bool.
register(OpDef("SELECT_V2", None, _infer_select, (_select_operands,), dtypes=frozenset({DType.BOOL}),
              listed="bool condition; float32, int8 values"))
