"""Element-wise ops: ADD/SUB/MUL with broadcasting, unary activations, (de)quantize, softmax."""

from __future__ import annotations

from ..ir import DType, Op
from .registry import OpDef, register
from .attrs import ActivationAttrs, LeakyReluAttrs, NoAttrs, SoftmaxAttrs
from .common import activation_supported, quantized_if_int8

MAX_RANK = 5


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """numpy/TFLite broadcasting of two static shapes; ValueError if incompatible."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise ValueError(f"shapes {list(a)} and {list(b)} do not broadcast")
        out.append(max(x, y))
    return tuple(out)


def _infer_binary(op: Op):
    return [(broadcast_shape(op.inputs[0].shape, op.inputs[1].shape), op.inputs[0].dtype)]


def _broadcastable(op: Op) -> str | None:
    if len(op.inputs) != 2:
        return f"expects 2 inputs, got {len(op.inputs)}"
    try:
        shape = broadcast_shape(op.inputs[0].shape, op.inputs[1].shape)
    except ValueError as e:
        return str(e)
    if len(shape) > MAX_RANK:
        return f"rank {len(shape)} is above the supported {MAX_RANK}"
    if op.inputs[0].dtype != op.inputs[1].dtype:
        return f"operand types differ ({op.inputs[0].dtype} and {op.inputs[1].dtype})"
    return None


def _infer_same(op: Op):
    return [(op.inputs[0].shape, op.inputs[0].dtype)]


def _infer_quantize(op: Op):
    return [(op.inputs[0].shape, None)]


I8, U8, I16, I32, F32 = DType.INT8, DType.UINT8, DType.INT16, DType.INT32, DType.FLOAT32
# (input, output) types TFLM's QUANTIZE runs (quantize_common.cc EvalQuantizeReference)
QUANTIZE_TYPES = frozenset({(F32, I8), (F32, I16), (I8, I8), (U8, I8), (I8, U8), (I8, I16), (I8, I32),
                            (I16, I8), (I16, I16), (I16, I32), (I32, I8), (I32, I16)})


def _quantize_types(op: Op) -> str | None:
    src, dst = op.inputs[0], op.outputs[0]
    if (src.dtype, dst.dtype) not in QUANTIZE_TYPES:
        return f"QUANTIZE from {src.dtype} to {dst.dtype} is not supported"
    for t in (src, dst) if src.dtype != F32 else (dst,):
        if t.quant is None or len(t.quant.scale) != 1:
            return f"QUANTIZE needs one scale and zero point on '{t.name}' (TFLM: per-tensor only)"
    return None


def _dequantize_types(op: Op) -> str | None:
    if op.outputs[0].dtype != DType.FLOAT32:
        return f"DEQUANTIZE to {op.outputs[0].dtype} is not supported"
    return None


def _softmax_shape(op: Op) -> str | None:
    if not op.inputs[0].shape:
        return "softmax of a scalar"
    return None


def _infer_softmax(op: Op):
    """int8 input: int8 or int16 output (the file says which); else the input's type."""
    return [(op.inputs[0].shape, None if op.inputs[0].dtype == DType.INT8 else op.inputs[0].dtype)]


def _softmax_types(op: Op) -> str | None:
    src, dst = op.inputs[0].dtype, op.outputs[0].dtype
    if src == DType.INT8 and dst not in (DType.INT8, DType.INT16):
        return f"SOFTMAX from int8 to {dst} is not supported (int8 or int16 output)"
    return None


_INT8_F32 = frozenset({DType.INT8, DType.FLOAT32})
_BINARY = (_broadcastable, quantized_if_int8, activation_supported)
_UNARY = (quantized_if_int8,)

_INT16 = frozenset({DType.INT8, DType.INT16, DType.FLOAT32})  # ops with an int16 kernel (lower/int16.py)


def _int16_zero_points(op: Op) -> str | None:
    """TFLM's int16 kernels of MUL, RELU, LOGISTIC, TANH, SOFTMAX need symmetric tensors."""
    for t in [*op.inputs, *op.outputs]:
        if t is not None and t.dtype == DType.INT16 and t.quant is not None and any(t.quant.zero_point):
            return f"int16 tensor '{t.name}' has zero point {t.quant.zero_point[0]}; TFLM's int16 {op.kind} needs 0"
    return None


def _int16_sigmoid_scales(op: Op) -> str | None:
    """TFLM's int16 LOGISTIC / TANH: output scale 2^-15, input scale small enough for its 16-bit
    input multiplier (scale * 3 * 4096 <= 32767)."""
    x, y = op.inputs[0], op.outputs[0]
    if x.dtype != DType.INT16 or x.quant is None or y.quant is None:
        return None
    if abs(y.quant.scale[0] * 2 ** 15 - 1) > 1e-3:
        return f"int16 {op.kind} needs output scale 2^-15 (1/32768), got {y.quant.scale[0]:g}"
    if x.quant.scale[0] * 3 * 4096 > 32767:
        return f"int16 {op.kind} input scale {x.quant.scale[0]:g} is above TFLM's limit 32767/12288"
    return None


register(
    OpDef("ADD", ActivationAttrs, _infer_binary, _BINARY, dtypes=_INT16 | {DType.INT32}),
    OpDef("SUB", ActivationAttrs, _infer_binary, _BINARY, dtypes=_INT16),
    OpDef("MUL", ActivationAttrs, _infer_binary, (*_BINARY, _int16_zero_points), dtypes=_INT16 | {DType.INT32}),
    *(OpDef(kind, None, _infer_binary, (_broadcastable, quantized_if_int8),
            dtypes=frozenset({DType.INT8, DType.FLOAT32, DType.INT32})) for kind in ("MAXIMUM", "MINIMUM")),
    OpDef("RELU", None, _infer_same, (*_UNARY, _int16_zero_points), dtypes=_INT16),
    OpDef("RELU6", None, _infer_same, _UNARY, dtypes=_INT16),
    *(OpDef(kind, None, _infer_same, (*_UNARY, _int16_zero_points, _int16_sigmoid_scales), dtypes=_INT16)
      for kind in ("LOGISTIC", "TANH")),
    OpDef("HARD_SWISH", None, _infer_same, _UNARY),
    OpDef("LEAKY_RELU", LeakyReluAttrs, _infer_same, _UNARY, dtypes=_INT16),
    OpDef("SOFTMAX", SoftmaxAttrs, _infer_softmax, (*_UNARY, _softmax_shape, _softmax_types), dtypes=_INT16),
    OpDef("QUANTIZE", NoAttrs, _infer_quantize, (_quantize_types, quantized_if_int8),
          dtypes=frozenset(src for src, _ in QUANTIZE_TYPES)),
    OpDef("DEQUANTIZE", NoAttrs, _infer_quantize, (_dequantize_types, quantized_if_int8),
          dtypes=frozenset({DType.INT8, DType.UINT8, DType.INT16})),
)
