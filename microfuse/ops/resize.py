"""RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR over NHWC, with a constant [height, width] size."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ir import DType, Op
from .attrs import Attrs
from .common import const_input, quantized_if_int8, rank
from .registry import OpDef, register


@dataclass(frozen=True)
class ResizeAttrs(Attrs):
    align_corners: bool = False
    half_pixel_centers: bool = False


def out_size(op: Op) -> tuple[int, int]:
    h, w = (int(v) for v in np.asarray(op.inputs[1].data).reshape(-1))
    return h, w


def _infer(op: Op):
    n, _, _, c = op.inputs[0].shape
    return [((n, *out_size(op), c), op.inputs[0].dtype)]


def _size(op: Op) -> str | None:
    size = op.inputs[1]
    if size.dtype != DType.INT32 or size.elements != 2:
        return "size must be two int32 values [height, width]"
    if min(out_size(op)) < 1:
        return f"size {list(out_size(op))} must be positive"
    return None


def _same_quant(op: Op) -> str | None:
    i, o = op.inputs[0], op.outputs[0]
    if i.quant and o.quant and (i.quant.scale[0] != o.quant.scale[0] or i.quant.zero_point[0] != o.quant.zero_point[0]):
        return "int8 input and output quantization must match (TFLM copies and blends stored values)"
    return None


def _options(op: Op) -> str | None:
    if op.kind == "RESIZE_BILINEAR" and op.attrs.align_corners and op.attrs.half_pixel_centers:
        return "align_corners and half_pixel_centers cannot both be set (TFLM refuses it)"
    return None


_CHECKS = (rank(4), const_input(1, "size"), _size, quantized_if_int8, _same_quant, _options)
register(
    OpDef("RESIZE_BILINEAR", ResizeAttrs, _infer, _CHECKS),
    OpDef("RESIZE_NEAREST_NEIGHBOR", ResizeAttrs, _infer, _CHECKS,
          dtypes=frozenset({DType.INT8, DType.INT16, DType.FLOAT32})),
)
