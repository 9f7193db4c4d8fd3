"""Shared shape arithmetic and constraint helpers for the op families."""

from __future__ import annotations

import numpy as np

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


def window_kernel(op: Op) -> tuple[int, int, int, int]:
    """(k_h, k_w, dilation_h, dilation_w) of a windowed op: conv, depthwise or pool."""
    a = op.attrs
    if op.kind in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        _, kh, kw, _ = op.inputs[1].shape
        return kh, kw, a.dilation_h, a.dilation_w
    return a.filter_h, a.filter_w, 1, 1


def window_pads(op: Op) -> tuple[int, int, int, int]:
    """(top, bottom, left, right) padding of a windowed op: TFLite's SAME (the smaller half
    before), none for VALID, or the pads of EXPLICIT (a folded PAD). The shape rules, the
    lowerings and the planner's read windows all take the padding from here."""
    a = op.attrs
    if a.padding == "EXPLICIT":
        return tuple(int(p) for p in a.pads)
    if a.padding != "SAME":
        return (0, 0, 0, 0)
    _, h, w, _ = op.inputs[0].shape
    kh, kw, dh, dw = window_kernel(op)
    pads = []
    for size, k, stride, dil in ((h, kh, a.stride_h, dh), (w, kw, a.stride_w, dw)):
        out = conv_out(size, k, stride, dil, "SAME")
        before = same_pad(size, k, stride, dil, out)
        total = max(0, (out - 1) * stride + (k - 1) * dil + 1 - size)
        pads += [before, max(total - before, 0)]
    return tuple(pads)


def window_out(op: Op) -> tuple[int, int]:
    """Output height and width of a windowed op."""
    _, h, w, _ = op.inputs[0].shape
    kh, kw, dh, dw = window_kernel(op)
    a = op.attrs
    if a.padding != "EXPLICIT":
        return (conv_out(h, kh, a.stride_h, dh, a.padding), conv_out(w, kw, a.stride_w, dw, a.padding))
    top, bottom, left, right = window_pads(op)
    return (conv_out(h + top + bottom, kh, a.stride_h, dh, "VALID"),
            conv_out(w + left + right, kw, a.stride_w, dw, "VALID"))


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
    """int8 and int16 activations need quantization parameters."""
    for t in [*op.inputs, *op.outputs]:
        if t is not None and t.dtype in (DType.INT8, DType.INT16) and not t.is_const and t.quant is None:
            return f"{t.dtype} tensor '{t.name}' has no quantization parameters"
    return None


def symmetric_if_int16(op: Op) -> str | None:
    """16x8 kernels have no offsets (TFLM's int16 reference kernels): int16 zero points are 0."""
    for t in (op.inputs[0], *op.outputs):
        if t is not None and t.dtype == DType.INT16 and t.quant is not None and any(t.quant.zero_point):
            return f"int16 tensor '{t.name}' has zero point {t.quant.zero_point[0]}; 16x8 kernels need 0"
    return None


def activation_supported(op: Op) -> str | None:
    act = getattr(op.attrs, "activation", "NONE")
    if act not in ("NONE", "RELU", "RELU6", "RELU_N1_TO_1"):
        return f"fused activation {act} is not supported"
    return None


def per_tensor(t: Tensor | None) -> bool:
    return t is not None and t.quant is not None and len(t.quant.scale) == 1


INT32_MAX = 2**31 - 1
# the weight axes one output channel sums over (CONV_2D [O,H,W,I], DEPTHWISE [1,H,W,O], FC [O,I])
_SUM_AXES = {"CONV_2D": (1, 2, 3), "DEPTHWISE_CONV_2D": (0, 1, 2), "FULLY_CONNECTED": (1,)}


def accumulator_fits(op: Op) -> str | None:
    """int8 kernels accumulate bias + sum(w * (x - zero point)) in int32, as TFLM does; where the
    constants let that sum pass int32 TFLM's arithmetic is undefined, so the model is refused."""
    x, w = op.inputs[0], op.inputs[1]
    if x.dtype != DType.INT8 or w is None or w.data is None or x.quant is None:
        return None
    zp = int(x.quant.zero_point[0])
    reach = np.abs(np.asarray(w.data, np.int64)).sum(axis=_SUM_AXES[op.kind]).reshape(-1) * max(127 - zp, zp + 128)
    b = op.inputs[2] if len(op.inputs) > 2 else None
    if b is not None and b.data is not None and np.asarray(b.data).size == reach.size:
        reach = reach + np.abs(np.asarray(b.data, np.int64)).reshape(-1)
    c = int(np.argmax(reach))
    if reach[c] <= INT32_MAX:
        return None
    return (f"its int32 accumulator can overflow: bias and weights of output channel {c} reach "
            f"{int(reach[c]):,} (> {INT32_MAX:,}), where TFLM's arithmetic is undefined")
