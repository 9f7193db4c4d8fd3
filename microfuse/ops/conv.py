"""CONV_2D and DEPTHWISE_CONV_2D: NHWC input, OHWI / 1HWO filters, optional bias."""

from __future__ import annotations

from ..ir import DType, Op
from .registry import OpDef, register
from .attrs import ConvAttrs, DepthwiseAttrs
from .common import accumulator_fits, activation_supported, const_input, quantized_if_int8, rank, symmetric_if_int16, window_out


def _out_hw(op: Op, kh: int, kw: int) -> tuple[int, int]:
    return window_out(op)


def _infer_conv(op: Op):
    oc, kh, kw, _ = op.inputs[1].shape
    oh, ow = _out_hw(op, kh, kw)
    return [((op.inputs[0].shape[0], oh, ow, oc), op.inputs[0].dtype)]


def _infer_dw(op: Op):
    _, kh, kw, oc = op.inputs[1].shape
    oh, ow = _out_hw(op, kh, kw)
    return [((op.inputs[0].shape[0], oh, ow, oc), op.inputs[0].dtype)]


def _macs_conv(op: Op) -> int:
    oc, kh, kw, ic = op.inputs[1].shape
    n, (oh, ow) = op.inputs[0].shape[0], window_out(op)  # not the output: a fused pool may reduce it
    return n * oh * ow * oc * kh * kw * ic


def _macs_dw(op: Op) -> int:
    _, kh, kw, oc = op.inputs[1].shape
    n, (oh, ow) = op.inputs[0].shape[0], window_out(op)
    return n * oh * ow * oc * kh * kw


def _geometry(op: Op) -> str | None:
    a = op.attrs
    if min(a.stride_h, a.stride_w, a.dilation_h, a.dilation_w) < 1:
        return "strides and dilations must be >= 1"
    if any(d <= 0 for d in op.outputs[0].shape):
        return f"output shape {list(op.outputs[0].shape)} is empty"
    return None


def _conv_channels(op: Op) -> str | None:
    ic, fic = op.inputs[0].shape[3], op.inputs[1].shape[3]
    if ic != fic:
        return f"grouped convolution (input channels {ic}, filter channels {fic}) is not supported"
    return None


def _dw_channels(op: Op) -> str | None:
    ic, oc = op.inputs[0].shape[3], op.inputs[1].shape[3]
    if oc != ic * op.attrs.depth_multiplier and not (op.attrs.depth_multiplier in (0, 1) and oc % ic == 0):
        return f"output channels {oc} != input channels {ic} x depth multiplier {op.attrs.depth_multiplier}"
    return None


# bias types per data type; 16x8: int64, or int32 (TFLM then accumulates in int32)
BIAS_TYPES = {DType.INT8: (DType.INT32,), DType.INT16: (DType.INT64, DType.INT32), DType.FLOAT32: (DType.FLOAT32,)}


def _bias(op: Op) -> str | None:
    bias = op.inputs[2] if len(op.inputs) > 2 else None
    if bias is None:
        return None
    want = BIAS_TYPES[op.inputs[0].dtype]
    if op.kind == "DEPTHWISE_CONV_2D" and op.inputs[0].dtype == DType.INT16:
        want = (DType.INT64,)  # TFLM's 16x8 depthwise reads its bias as int64, whatever its type
    if not bias.is_const or bias.dtype not in want:
        return f"bias must be a constant {' or '.join(str(t) for t in want)} tensor"
    return None


def not_hybrid(op: Op) -> str | None:
    """Float activations with int8 weights: TFLM refuses such (hybrid) models."""
    w = op.inputs[1] if len(op.inputs) > 1 else None
    if op.inputs[0].dtype == DType.FLOAT32 and w is not None and w.dtype != DType.FLOAT32:
        return (f"float input with {w.dtype} weights '{w.name}' (hybrid quantization) is not supported, "
                "as in TFLM; convert the model fully to int8 or keep float32 weights")
    return None


_COMMON = (rank(4, 0), rank(4, 1), const_input(1, "filter"), not_hybrid, _bias, _geometry,
           quantized_if_int8, symmetric_if_int16, activation_supported, accumulator_fits)
DTYPES = frozenset({DType.INT8, DType.INT16, DType.FLOAT32})

register(
    OpDef("CONV_2D", ConvAttrs, _infer_conv, (*_COMMON, _conv_channels), _macs_conv, DTYPES),
    OpDef("DEPTHWISE_CONV_2D", DepthwiseAttrs, _infer_dw, (*_COMMON, _dw_channels), _macs_dw, DTYPES),
)
