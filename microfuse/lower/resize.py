"""Lowering of RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR (runtime_c/include/mf_resize.h): TFLM's
per-row and per-column index arithmetic (float32 for nearest and float bilinear, 10-bit fixed point
for int8 bilinear) is replayed here in numpy float32 / exact integers, so the kernel only gathers."""

from __future__ import annotations

import math

import numpy as np

from ..ir import DType, Op
from ..ops.resize import out_size
from .call import Call, ConstArray
from .kernels import KernelSpec, declare, make
from .registry import lowering

INT8, FLOAT32 = DType.INT8, DType.FLOAT32
F = np.float32

declare({"mf_resize_params": ("batches", "in_h", "in_w", "depth", "out_h", "out_w", "y0", "y1", "x0", "x1",
                              "wy", "wx", "fy", "fx")},
        *(KernelSpec(f"mf_resize_{k}_{t}", "mf_resize_params", "mf_resize.c")
          for k in ("nearest", "bilinear") for t in ("s8", "f32")),
        KernelSpec("mf_resize_nearest_s16", "mf_resize_params", "mf_resize.c"),
        defaults={"mf_resize_params": {k: "NULL" for k in ("y1", "x1", "wy", "wx", "fy", "fx")}})


def _scale(n_in: int, n_out: int, align: bool) -> np.float32:
    return F(n_in - 1) / F(n_out - 1) if align and n_out > 1 else F(n_in) / F(n_out)


def nearest(n_in: int, n_out: int, align: bool, half: bool) -> list[int]:
    """TFLM's GetNearestNeighbor for every output index, in float32."""
    scale, offset = _scale(n_in, n_out, align), F(0.5 if half else 0.0)
    found = []
    for i in range(n_out):
        v = float((F(i) + offset) * scale)
        j = min(math.floor(v + 0.5) if align else math.floor(v), n_in - 1)  # TfLiteRound: half away from 0
        found.append(max(j, 0) if half else j)
    return found


def bilinear_f32(n_in: int, n_out: int, align: bool, half: bool):
    """TFLM's ComputeInterpolationValues: (lower, upper, input - lower) per output index, float32."""
    scale = _scale(n_in, n_out, align)
    lo, hi, w = [], [], []
    for i in range(n_out):
        v = (F(i) + F(0.5)) * scale - F(0.5) if half else F(i) * scale
        lo.append(max(int(math.floor(v)), 0))
        hi.append(min(int(math.ceil(v)), n_in - 1))
        w.append(F(v - F(lo[-1])))
    return lo, hi, np.array(w, np.float32)


def _tdiv(a: int, b: int) -> int:
    """C's truncating integer division."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def bilinear_s8(n_in: int, n_out: int, align: bool, half: bool):
    """TFLM's ComputeInterpolationValuesInteger: (lower, upper, weight of upper in 1/1024)."""
    if align and n_out > 1:
        s = ((1 << 10) * (n_in - 1) + (n_out - 1) // 2) // (n_out - 1)
    else:
        s = ((1 << 10) * n_in + n_out // 2) // n_out
    lo, hi, w = [], [], []
    for i in range(n_out):
        v = i * s + s // 2 - (1 << 9) if half else i * s
        lo.append(max(_tdiv(v, 1 << 10), 0))
        hi.append(min(_tdiv(v + (1 << 10) - 1, 1 << 10), n_in - 1))
        w.append(v - (1 << 10) * lo[-1])
    return lo, hi, w


def _i32(name: str, values) -> ConstArray:
    return ConstArray(name, np.asarray(values, np.int32))


@lowering("RESIZE_NEAREST_NEIGHBOR", INT8, DType.INT16, FLOAT32)
@lowering("RESIZE_BILINEAR", INT8, FLOAT32)
def lower_resize(op: Op, lw) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    n, in_h, in_w, c = src.shape
    out_h, out_w = out_size(op)
    a = op.attrs
    params = dict(batches=n, in_h=in_h, in_w=in_w, depth=c, out_h=out_h, out_w=out_w)
    t = {INT8: "s8", DType.INT16: "s16", FLOAT32: "f32"}[src.dtype]
    if op.kind == "RESIZE_NEAREST_NEIGHBOR":
        params.update(y0=_i32("y0", nearest(in_h, out_h, a.align_corners, a.half_pixel_centers)),
                      x0=_i32("x0", nearest(in_w, out_w, a.align_corners, a.half_pixel_centers)))
        return make(f"mf_resize_nearest_{t}", params, [src], [dst], [op])
    rule = bilinear_s8 if src.dtype == INT8 else bilinear_f32
    (y0, y1, wy), (x0, x1, wx) = (rule(size, o, a.align_corners, a.half_pixel_centers)
                                  for size, o in ((in_h, out_h), (in_w, out_w)))
    params.update(y0=_i32("y0", y0), y1=_i32("y1", y1), x0=_i32("x0", x0), x1=_i32("x1", x1))
    if src.dtype == INT8:
        params.update(wy=_i32("wy", wy), wx=_i32("wx", wx))
    else:
        params.update(fy=ConstArray("fy", wy), fx=ConstArray("fx", wx))
    return make(f"mf_resize_bilinear_{t}", params, [src], [dst], [op])
