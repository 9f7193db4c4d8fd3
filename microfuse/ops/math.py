"""Element-wise math ops of one input (ABS ... ZEROS_LIKE), with the types TFLM registers for each."""

from __future__ import annotations

from ..ir import DType, Op
from .common import per_tensor
from .registry import OpDef, register

F32, I8, I32, I64, BOOL = DType.FLOAT32, DType.INT8, DType.INT32, DType.INT64, DType.BOOL

# Per kind, the input types of TFLM's kernel (elementwise.cc, neg.cc, ceil.cc, floor.cc, round.cc,
# exp.cc, elu.cc, zeros_like.cc); int8 ones are 256-entry tables (lower/math.py).
UNARY_TYPES: dict[str, frozenset[DType]] = {
    **{k: frozenset({F32}) for k in ("NEG", "CEIL", "FLOOR", "ROUND", "SQRT", "SQUARE", "EXP", "LOG", "SIN", "COS")},
    **{k: frozenset({F32, I8}) for k in ("ABS", "RSQRT", "ELU")},
    "LOGICAL_NOT": frozenset({BOOL}),
    "ZEROS_LIKE": frozenset({F32, I32, I64, I8}),  # int8: raw 0 bytes, as TFLM
}


def _infer_same(op: Op):
    return [(op.inputs[0].shape, op.inputs[0].dtype)]


def one_in_one_out(op: Op) -> str | None:
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        return f"expects 1 input and 1 output, has {len(op.inputs)} and {len(op.outputs)}"
    if op.inputs[0].is_const:
        return f"input '{op.inputs[0].name}' is a constant (not folded)"
    if op.outputs[0].dtype != op.inputs[0].dtype:
        return f"output type {op.outputs[0].dtype} differs from the input's {op.inputs[0].dtype}"
    return None


def int8_per_tensor(op: Op) -> str | None:
    """int8 tables need one scale and zero point on the input and the output (TFLM reads [0])."""
    for t in (*op.inputs, *op.outputs):
        if t is not None and t.dtype == I8 and not per_tensor(t):
            return f"int8 tensor '{t.name}' needs per-tensor quantization"
    return None


register(*(OpDef(kind, None, _infer_same, (one_in_one_out, int8_per_tensor), dtypes=types)
           for kind, types in UNARY_TYPES.items()))
