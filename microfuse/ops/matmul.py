"""BATCH_MATMUL: [..., rows, depth] x [..., depth, cols] with adj_x / adj_y and broadcast batch dims."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import DType, Op
from .attrs import Attrs
from .common import quantized_if_int8
from .registry import OpDef, register

BATCH_DIMS = 3  # TFLM: ranks 2 to 5


@dataclass(frozen=True)
class BatchMatMulAttrs(Attrs):
    adj_x: bool = False
    adj_y: bool = False
    asymmetric_quantize_inputs: bool = False


def matrices(op: Op) -> tuple[int, int, int]:
    """(rows, depth, cols) of the product after adj_x / adj_y."""
    a, b = op.inputs[0].shape, op.inputs[1].shape
    rows, depth = (a[-1], a[-2]) if op.attrs.adj_x else (a[-2], a[-1])
    cols = b[-2] if op.attrs.adj_y else b[-1]
    return rows, depth, cols


def batch_shape(op: Op) -> tuple[int, ...]:
    a, b = op.inputs[0].shape[:-2], op.inputs[1].shape[:-2]
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    return tuple(max(x, y) for x, y in zip(a, b))


def _infer(op: Op):
    rows, _, cols = matrices(op)
    return [((*batch_shape(op), rows, cols), op.inputs[0].dtype)]


def _checks(op: Op) -> str | None:
    a, b = op.inputs
    if not (2 <= len(a.shape) <= 5 and 2 <= len(b.shape) <= 5):
        return f"operands of rank {len(a.shape)} and {len(b.shape)}: TFLM takes ranks 2 to 5"
    if a.dtype != b.dtype:
        return f"operands of types {a.dtype} and {b.dtype} (hybrid BATCH_MATMUL is not supported, as in TFLM)"
    x, y = a.shape[:-2], b.shape[:-2]
    n = max(len(x), len(y))
    x, y = (1,) * (n - len(x)) + tuple(x), (1,) * (n - len(y)) + tuple(y)
    if any(p != q and 1 not in (p, q) for p, q in zip(x, y)):
        return f"batch dimensions {list(a.shape[:-2])} and {list(b.shape[:-2])} do not broadcast"
    depth_b = b.shape[-1] if op.attrs.adj_y else b.shape[-2]
    if matrices(op)[1] != depth_b:
        return f"inner dimensions {matrices(op)[1]} and {depth_b} differ"
    if a.dtype == DType.INT16 and any(t.quant and t.quant.zero_point[0] != 0 for t in (a, b, op.outputs[0])):
        return "int16 operands and output need zero point 0 (TFLM requires it)"
    if a.is_const and b.is_const:
        return "both operands are constants (fold the product)"
    return None


def _macs(op: Op) -> int:
    rows, depth, cols = matrices(op)
    n = 1
    for d in batch_shape(op):
        n *= d
    return n * rows * depth * cols


register(OpDef("BATCH_MATMUL", BatchMatMulAttrs, _infer, (_checks, quantized_if_int8), macs=_macs,
              dtypes=frozenset({DType.INT8, DType.INT16, DType.FLOAT32})))
