"""CAST: element-wise static_cast between the types TFLM's cast.cc takes (no quantization involved)."""

from __future__ import annotations

from ..ir import DType, Op
from .registry import OpDef, register

# TFLM cast.cc: the input types its Eval switches on, the output types copyToTensor writes
CAST_FROM = frozenset({DType.INT8, DType.INT16, DType.INT32, DType.UINT32, DType.FLOAT32, DType.BOOL})
CAST_TO = frozenset({DType.INT8, DType.INT16, DType.INT32, DType.UINT32, DType.FLOAT32})


def _infer(op: Op):
    return [(op.inputs[0].shape, None)]  # the output type is the file's


def _types(op: Op) -> str | None:
    if len(op.inputs) != 1 or len(op.outputs) != 1 or op.inputs[0] is None:
        return f"expects 1 input and 1 output, has {len(op.inputs)} and {len(op.outputs)}"
    x, y = op.inputs[0], op.outputs[0]
    if y.dtype not in CAST_TO:
        allowed = ", ".join(sorted(str(t) for t in CAST_TO))
        return f"CAST to {y.dtype} is not supported (TFLM casts to {allowed})"
    if x.elements != y.elements:
        return f"input {list(x.shape)} and output {list(y.shape)} differ in size"
    return None if not x.is_const else "a constant input (fold it)"


register(OpDef("CAST", None, _infer, (_types,), dtypes=CAST_FROM))
