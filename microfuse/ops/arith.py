"""Element-wise arithmetic of two broadcast inputs (DIV, FLOOR_DIV, FLOOR_MOD, SQUARED_DIFFERENCE,
PRELU), with the types and broadcast ranks of TFLM's kernels."""

from __future__ import annotations

from ..ir import DType, Op
from .attrs import ActivationAttrs
from .common import activation_supported
from .compare import broadcast_pair
from .elementwise import _infer_binary
from .math import int8_per_tensor
from .registry import OpDef, register

F32, I8, I32 = DType.FLOAT32, DType.INT8, DType.INT32

# kind: (input types, the broadcast rank of TFLM's kernel; None: any rank when shapes are equal)
ARITH: dict[str, tuple[frozenset[DType], int]] = {
    "DIV": (frozenset({F32, I32, I8}), 5),  # BroadcastDivSlow<5>
    "FLOOR_DIV": (frozenset({F32}), 4),  # BroadcastBinaryFunction4DSlow
    "FLOOR_MOD": (frozenset({F32}), 4),
    "SQUARED_DIFFERENCE": (frozenset({F32, I32, I8}), 4),
    "PRELU": (frozenset({F32, I8}), 4),  # BroadcastPrelu4DSlow, every shape
}


def _operands(op: Op) -> str | None:
    found = broadcast_pair(op, ARITH[op.kind][1])
    if found:
        return found
    if op.kind == "PRELU" and len(op.outputs[0].shape) > 4:
        return f"rank {len(op.outputs[0].shape)} is above TFLM's 4 for PRELU"
    if op.outputs[0].dtype != op.inputs[0].dtype:
        return f"output type {op.outputs[0].dtype} differs from the input's {op.inputs[0].dtype}"
    return None


def _int32_unquantized(op: Op) -> str | None:
    """TFLM's int32 DIV refuses quantized inputs."""
    if op.kind == "DIV" and any(t.dtype == I32 and t.quant is not None for t in op.inputs):
        return "int32 DIV needs unquantized inputs (TFLM)"
    return None


register(*(OpDef(kind, ActivationAttrs if kind == "DIV" else None, _infer_binary,
                 (_operands, int8_per_tensor, activation_supported, _int32_unquantized), dtypes=types)
           for kind, (types, _) in ARITH.items()))
