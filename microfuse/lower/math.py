"""Lowering of the one-input math ops (ops/math.py): float32/bool kernels of runtime_c/src/mf_math.c,
int8 ABS/RSQRT/ELU as 256-entry tables that emulate TFLM's int8 kernels at compile time."""

from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np

from .. import fixedpoint as fp
from .. import lut as luts
from ..ir import DType, Op
from ..ops.math import UNARY_TYPES
from ..quant import quantize_multiplier
from .common import qp
from .elementwise import lut_call
from .kernels import ELEMENT, KernelSpec, declare, make
from .registry import lowering

F32, I8 = DType.FLOAT32, DType.INT8
FLOAT_KERNELS = {k: f"mf_{k.lower()}_f32" for k, types in UNARY_TYPES.items() if F32 in types and k != "ZEROS_LIKE"}
KERNELS = {**FLOAT_KERNELS, "LOGICAL_NOT": "mf_logical_not_b", "ZEROS_LIKE": "mf_zeros"}

declare({"mf_math_params": ("size",)},
        *(KernelSpec(name, "mf_math_params", "mf_math.c", access=ELEMENT) for name in KERNELS.values()))

# The C library's expf: TFLM's ELU table calls it, so the table is exact only with the same function.
_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
_LIBM.expf.restype, _LIBM.expf.argtypes = ctypes.c_float, [ctypes.c_float]
f32 = np.float32


def _abs_s8(s_in: float, z_in: int, s_out: float, z_out: int):
    """TFLM AbsEvalQuantized: |x - z_in|, rescaled only when the float scales differ."""
    if f32(s_in) == f32(s_out):
        return lambda x: abs(x - z_in) + z_out
    mult, shift = quantize_multiplier(float(f32(s_in)) / float(f32(s_out)))
    return lambda x: fp.mul_by_quantized_multiplier(abs(x - z_in), mult, shift) + z_out


def _elu_s8(s_in: float, z_in: int, s_out: float, z_out: int):
    """TFLM elu.cc PopulateLookupTable, in float32 as it computes: exp(x) - 1 below 0, rounded."""
    inverse = f32(1.0) / f32(s_out)

    def f(x: int) -> int:
        v = f32(s_in) * f32(x - z_in)
        t = f32(f32(_LIBM.expf(float(v))) - f32(1.0)) if v < 0 else v
        r = float(f32(t * inverse))
        return int(f32(math.copysign(math.floor(abs(r) + 0.5), r)) + f32(z_out))
    return f


def _inv_sqrt(x: int) -> tuple[int, int]:
    """GetInvSqrtQuantizedMultiplierExp(x, kReverseShift): 1/sqrt(x) as (multiplier, left shift)."""
    if x <= 1:
        return fp.INT32_MAX, 0
    shift = 11
    while x >= 1 << 29:
        x //= 4
        shift += 1
    pairs = (32 - x.bit_length() - 1) // 2 - 1  # (CountLeadingZeros - 1) / 2 - 1
    shift -= pairs
    x <<= 2 * pairs
    half_input = fp.rdivpot(x >> 1, 1)  # F3, SaturatingRoundingMultiplyByPOT<-1>
    half_three = (1 << 28) + (1 << 27)  # 1.5 in F3
    y = 1 << 28  # F3 one
    for _ in range(5):  # Newton-Raphson, gemmlowp fixed point: F3*F3 is F6, Rescale<3> shifts by 3
        y3 = fp.sat_mul_pot(fp.srdhm(fp.srdhm(y, y), y), 6)
        y = fp.sat_mul_pot(fp.wrap32(fp.srdhm(half_three, y) - fp.srdhm(half_input, y3)), 3)
    y = fp.srdhm(y, 1518500250)  # * sqrt(2)/2 in F0
    if shift < 0:
        y, shift = fp.wrap32(y << -shift), 0
    return y, -shift


def _rsqrt_s8(s_in: float, z_in: int, s_out: float, z_out: int):
    """TFLM RsqrtEvalQuantized. Inputs below the zero point are an error in TFLM: 127 here."""
    mult, shift = quantize_multiplier(1.0 / (math.sqrt(float(f32(s_in))) * float(f32(s_out))))

    def f(x: int) -> int:
        v = x - z_in
        if v <= 0:
            return 127
        m, s = _inv_sqrt(v)
        data = fp.mul_by_quantized_multiplier(1, m, s + 20)
        return fp.mul_by_quantized_multiplier(data, mult, shift - 20) + z_out
    return f


TABLES = {"ABS": _abs_s8, "ELU": _elu_s8, "RSQRT": _rsqrt_s8}


@lowering("ABS", I8)
@lowering("ELU", I8)
@lowering("RSQRT", I8)
def lower_math_s8(op: Op, lw):
    (s_in, z_in), (s_out, z_out) = qp(op.inputs[0], op), qp(op.outputs[0], op)
    fn = TABLES[op.kind](s_in, z_in, s_out, z_out)
    return lut_call([op], luts.byte_table(fn, I8, I8))


def lower_math(op: Op, lw):
    src, dst = op.inputs[0], op.outputs[0]
    size = dst.elements * dst.dtype.size if op.kind == "ZEROS_LIKE" else src.elements
    return make(KERNELS[op.kind], dict(size=size), [src], [dst], [op])


for _kind, _types in UNARY_TYPES.items():
    lowering(_kind, *(_types - {I8} if _kind in TABLES else _types))(lower_math)
