"""Shared shape arithmetic and constraint helpers for the op families."""

from __future__ import annotations

from ..ir import DType, Op, Tensor


def conv_out(size: int, kernel: int, stride: int, dilation: int, padding: str) -> int:
    """Output length of a windowed op along one axis (TFLite's rule)."""
    effective = (kernel - 1) * dilation + 1
    if padding == "SAME":
        return (size + stride - 1) // stride
    return (size - effective + stride) // stride


def same_pad(size: int, kernel: int, stride: int, dilation: int, out: int) -> int:
    """Padding before the first element for SAME (TFLite floors the total / 2)."""
    effective = (kernel - 1) * dilation + 1
    return max(0, ((out - 1) * stride + effective - size) // 2)


def rank(n: int, which: int = 0):
    """Constraint: input `which` has rank n."""
    def check(op: Op) -> str | None:
        t = op.inputs[which]
        if t is None or len(t.shape) != n:
            return f"input {which} must have rank {n}, got {list(t.shape) if t else 'none'}"
        return None
    check.__doc__ = f"input {which} has rank {n}"
    return check


def const_input(which: int, what: str):
    """Constraint: input `which` is constant data (weights, shapes, paddings...)."""
    def check(op: Op) -> str | None:
        t = op.inputs[which] if which < len(op.inputs) else None
        if t is None or not t.is_const:
            return f"{what} (input {which}) must be a constant"
        return None
    check.__doc__ = f"{what} is constant"
    return check


def n_inputs(low: int, high: int | None = None):
    def check(op: Op) -> str | None:
        n = len(op.inputs)
        if n < low or n > (high if high is not None else low):
            return f"expects {low}{'-' + str(high) if high else ''} inputs, got {n}"
        return None
    return check


def quantized_if_int8(op: Op) -> str | None:
    """int8 activations need quantization parameters."""
    for t in [*op.inputs, *op.outputs]:
        if t is not None and t.dtype == DType.INT8 and not t.is_const and t.quant is None:
            return f"int8 tensor '{t.name}' has no quantization parameters"
    return None


def activation_supported(op: Op) -> str | None:
    act = getattr(op.attrs, "activation", "NONE")
    if act not in ("NONE", "RELU", "RELU6", "RELU_N1_TO_1"):
        return f"fused activation {act} is not supported"
    return None


def per_tensor(t: Tensor | None) -> bool:
    return t is not None and t.quant is not None and len(t.quant.scale) == 1
