"""TRANSPOSE_CONV: inputs (output shape, OHWI filter, NHWC input, optional bias), as TFLite orders them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..ir import DType, Op
from .attrs import _ACT, Attrs
from .common import conv_out
from .registry import OpDef, register

SHAPE, FILTER, INPUT, BIAS = range(4)
# bias type per data type: TFLM's Eval reads int32 for int8 and int64 for int16 (an int16 bias is
# widened to int64 by TFLM's bias_converted_buffer; an int32 bias would be read as int64: refused)
BIAS_TYPES = {DType.INT8: (DType.INT32,), DType.INT16: (DType.INT64, DType.INT16), DType.FLOAT32: (DType.FLOAT32,)}


@dataclass(frozen=True)
class TransposeConvAttrs(Attrs):
    padding: str = "SAME"
    stride_w: int = 1
    stride_h: int = 1
    activation: str = "NONE"
    OPTIONS: ClassVar = _ACT


def out_shape(op: Op) -> tuple[int, ...]:
    """The output shape operand's values; TFLM ignores the operand and takes the output tensor's
    shape, so a shape fed at run time (a graph input, as the SEANet layers have) is the file's."""
    t = op.inputs[SHAPE]
    if t is not None and t.is_const:
        return tuple(int(v) for v in t.data.reshape(-1))
    return tuple(op.outputs[0].shape)


def pads(op: Op) -> tuple[int, int]:
    """(pad_h, pad_w): TFLM's ComputePaddingHeightWidth with the *output* as the window's input
    (transpose_conv.cc CalculateOpData), the smaller half of the total before the first row."""
    _, out_h, out_w, _ = out_shape(op)
    _, kh, kw, _ = op.inputs[FILTER].shape
    a = op.attrs
    found = []
    for size, k, stride in ((out_h, kh, a.stride_h), (out_w, kw, a.stride_w)):
        n = conv_out(size, k, stride, 1, a.padding)
        found.append(max(0, (n - 1) * stride + k - size) // 2)
    return found[0], found[1]


def _infer(op: Op):
    return [(out_shape(op), op.inputs[INPUT].dtype)]


def _macs(op: Op) -> int:
    oc, kh, kw, ic = op.inputs[FILTER].shape
    n, h, w, _ = op.inputs[INPUT].shape
    return n * h * w * ic * kh * kw * oc


def _operands(op: Op) -> str | None:
    if len(op.inputs) not in (3, 4) or len(op.outputs) != 1:
        return f"expects 3-4 inputs and 1 output, has {len(op.inputs)} and {len(op.outputs)}"
    shape, w, x = op.inputs[:3]
    y = op.outputs[0]
    if shape is None or shape.dtype != DType.INT32 or shape.shape != (4,):
        return "input 0 (output shape) must be 4 int32 values"
    if w is None or not w.is_const or len(w.shape) != 4:
        return "input 1 (filter) must be a constant of rank 4"
    if x is None or x.is_const or len(x.shape) != 4:
        return "input 2 (input) must be an activation of rank 4"
    if len(y.shape) != 4 or y.dtype != x.dtype:
        return f"output '{y.name}' must have rank 4 and the input's type {x.dtype}"
    return None


def _weights(op: Op) -> str | None:
    x, w = op.inputs[INPUT], op.inputs[FILTER]
    want = DType.FLOAT32 if x.dtype == DType.FLOAT32 else DType.INT8
    if w.dtype != want:
        return f"filter type {w.dtype} with {x.dtype} data is not supported (TFLM: {want} filters only)"
    if want == DType.INT8:
        q = w.quant
        if q is None or not q.scale or any(z != 0 for z in q.zero_point):
            return "the int8 filter needs scales and zero points 0"
        if len(q.scale) not in (1, w.shape[0]) or (len(q.scale) > 1 and q.axis != 0):
            return f"the filter has {len(q.scale)} scales; expected 1 or one per output channel on axis 0"
    return None


def _bias(op: Op) -> str | None:
    b = op.inputs[BIAS] if len(op.inputs) > BIAS else None
    if b is None:
        return None
    want = BIAS_TYPES[op.inputs[INPUT].dtype]
    if not b.is_const or b.dtype not in want or b.shape != (op.inputs[FILTER].shape[0],):
        return (f"bias must be a constant of {op.inputs[FILTER].shape[0]} "
                f"{' or '.join(str(t) for t in want)} values")
    return None


def _geometry(op: Op) -> str | None:
    oc, _, _, fic = op.inputs[FILTER].shape
    n, _, _, ic = op.inputs[INPUT].shape
    a = op.attrs
    out = out_shape(op)
    if min(a.stride_h, a.stride_w) < 1:
        return "strides must be >= 1"
    if a.padding not in ("SAME", "VALID"):
        return f"padding {a.padding} is not supported"
    if any(d <= 0 for d in out):
        return f"output shape {list(out)} is empty"
    if out != tuple(op.outputs[0].shape):
        return f"output shape operand {list(out)} differs from the output tensor's {list(op.outputs[0].shape)}"
    if fic != ic or out[3] != oc or out[0] != n:
        return f"filter {list(op.inputs[FILTER].shape)} does not fit input {list(op.inputs[INPUT].shape)} and output {list(out)}"
    return None


def _quantization(op: Op) -> str | None:
    x, y = op.inputs[INPUT], op.outputs[0]
    if x.dtype == DType.FLOAT32:
        return None
    for t in (x, y):
        if t.quant is None or len(t.quant.scale) != 1:
            return f"{x.dtype} tensor '{t.name}' needs one scale and zero point"
    if x.dtype == DType.INT16 and (x.quant.zero_point[0] != 0 or y.quant.zero_point[0] != 0):
        return "int16 input and output need zero point 0 (TFLM's 16x8 kernels ignore it)"
    if op.attrs.activation != "NONE":  # transpose_conv.cc passes kTfLiteActNone for int8/int16
        return (f"fused activation {op.attrs.activation} on a quantized TRANSPOSE_CONV is not supported "
                "(TFLM ignores it; apply it as a separate op)")
    return None


def _activation(op: Op) -> str | None:
    act = op.attrs.activation
    if act not in ("NONE", "RELU", "RELU6", "RELU_N1_TO_1"):
        return f"fused activation {act} is not supported"
    return None


def _wired(check):
    """A check that reads the operands: silent until their wiring (_operands) holds."""
    return lambda op: None if _operands(op) else check(op)


register(OpDef("TRANSPOSE_CONV", TransposeConvAttrs, _infer,
               (_operands, *map(_wired, (_weights, _bias, _geometry, _quantization, _activation))), _macs,
               frozenset({DType.INT8, DType.INT16, DType.FLOAT32}), data=INPUT))
