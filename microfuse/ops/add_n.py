"""ADD_N: the sum of two or more tensors of one shape (TFLM add_n.cc: float32, int8 of one quantization)."""

from __future__ import annotations

from ..ir import DType, Op
from .math import int8_per_tensor
from .registry import OpDef, register

MAX_INPUTS = 16  # runtime_c/include/mf_add_n.h MF_ADD_N_MAX_INPUTS


def _infer_add_n(op: Op):
    return [(op.inputs[0].shape, op.inputs[0].dtype)]


def _add_n_operands(op: Op) -> str | None:
    first = op.inputs[0]
    if not 2 <= len(op.inputs) <= MAX_INPUTS or len(op.outputs) != 1:
        return f"expects 2-{MAX_INPUTS} inputs and 1 output, has {len(op.inputs)} and {len(op.outputs)}"
    for t in op.inputs[1:]:
        if t.shape != first.shape or t.dtype != first.dtype:
            return f"input '{t.name}' is {t.dtype} {list(t.shape)}, the first {first.dtype} {list(first.shape)}"
        if first.dtype == DType.INT8 and t.quant != first.quant:
            return f"int8 input '{t.name}' has another quantization than the first (TFLM needs one)"
    if any(t.is_const for t in op.inputs):
        return "a constant input is not supported (fold it)"
    return None


def _add_n_scale(op: Op) -> str | None:
    """QuantizeMultiplierSmallerThanOneExp of 2 * input scale / (2^20 * output scale) needs it below 1."""
    a, out = op.inputs[0], op.outputs[0]
    if a.dtype == DType.INT8 and a.quant and out.quant and 2 * a.quant.scale[0] >= (1 << 20) * out.quant.scale[0]:
        return "the output scale is too small for TFLM's int8 ADD_N rescaling"
    return None


register(OpDef("ADD_N", None, _infer_add_n, (_add_n_operands, int8_per_tensor, _add_n_scale)))
