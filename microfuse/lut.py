"""int8 unary ops as 256-byte lookup tables: a bit-exact Python emulation of each TFLite Micro int8
kernel evaluated on every input value at compile time, and composition of such tables.

A table is indexed by the input's raw byte (value & 0xFF), so the C kernel is `lut[(uint8_t)x]`."""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from . import fixedpoint as fp
from .errors import UnsupportedError
from .ir import DType, Op, Tensor
from .quant import quantize_multiplier

INPUTS = np.arange(-128, 128, dtype=np.int32)  # every int8 value, in table order after ordering()


def _f32(x) -> np.float32:
    return np.float32(x)


def _round(x: float) -> int:
    """TfLiteRound / std::round: halves away from zero."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def _qparams(t: Tensor, what: str, op: Op) -> tuple[float, int]:
    if t.quant is None or len(t.quant.scale) != 1:
        raise UnsupportedError(f"{op.where} '{op.name}': {what} needs per-tensor quantization")
    return float(t.quant.scale[0]), int(t.quant.zero_point[0])


def _table(fn: Callable[[int], int], lo: int = -128, hi: int = 127) -> np.ndarray:
    """Values fn(x) for x = -128..127 clamped to [lo, hi], laid out by raw byte."""
    out = np.empty(256, dtype=np.int32)
    for x in range(-128, 128):
        out[x & 0xFF] = min(max(fn(x), lo), hi)
    return out.astype(np.int8 if lo < 0 else np.uint8)


def _relu(op: Op, s_in: float, z_in: int, s_out: float, z_out: int) -> Callable[[int], int]:
    mult, shift = quantize_multiplier(s_in / s_out)
    act_min = max(-128, z_out)  # TFLM: zero_point + roundf(0 / scale)
    return lambda x: max(act_min, z_out + fp.mul_by_quantized_multiplier(x - z_in, mult, shift))


def _relu6(op: Op, s_in: float, z_in: int, s_out: float, z_out: int) -> Callable[[int], int]:
    # TFLM's int8 RELU6 clamps in the input's quantization and ignores the output's.
    six = min(127, max(-128, _round(float(_f32(6.0) / _f32(s_in))) + z_in))
    return lambda x: min(max(x, z_in), six)


def leaky_relu_multipliers(s_in: float, s_out: float, alpha: float) -> tuple[tuple[int, int], tuple[int, int]]:
    """(identity, alpha) multipliers and shifts of TFLM's int8 LEAKY_RELU (in float)."""
    m_alpha = quantize_multiplier(float(_f32(_f32(s_in) * _f32(alpha)) / _f32(s_out)))
    return quantize_multiplier(float(_f32(s_in) / _f32(s_out))), m_alpha


def _leaky_relu(op: Op, s_in: float, z_in: int, s_out: float, z_out: int) -> Callable[[int], int]:
    (m_id, sh_id), (m_alpha, sh_alpha) = leaky_relu_multipliers(s_in, s_out, op.attrs.alpha)

    def f(x: int) -> int:
        v = x - z_in
        m, s = (m_id, sh_id) if v >= 0 else (m_alpha, sh_alpha)
        return z_out + fp.mul_by_quantized_multiplier(v, m, s)
    return f


def _downscale_to_16(m32: int) -> int:
    """DownScaleInt32ToInt16Multiplier."""
    if m32 >= (1 << 31) - 1 - (1 << 15):
        return 32767
    return (m32 + (1 << 15)) >> 16


def _sat_shl16(v: int, amount: int) -> int:
    return min(max(v * (1 << amount), -32768), 32767)


def _sdhm16(a: int, b: int) -> int:
    """SaturatingDoublingHighMul (truncating) for int16."""
    if a == b == -32768:
        return 32767
    ab = a * b
    q = abs(ab) // (1 << 15)
    return fp.wrap16(q if ab >= 0 else -q)


def _rdivpot16(x: int, exponent: int) -> int:
    return fp.wrap16(fp.rdivpot(x, exponent))


def _hard_swish(op: Op, s_in: float, z_in: int, s_out: float, z_out: int) -> Callable[[int], int]:
    hires_input_scale = _f32(_f32(1.0 / 128.0) * _f32(s_in))
    reluish_scale = _f32(3.0 / 32768.0)
    out_m32, out_exp = quantize_multiplier(float(hires_input_scale / _f32(s_out)))
    relu_m32, relu_exp = quantize_multiplier(float(hires_input_scale / reluish_scale))
    if out_exp > 0:
        raise UnsupportedError(f"{op.where} '{op.name}': HARD_SWISH output scale too small for TFLM's kernel")
    out_m16, relu_m16 = _downscale_to_16(out_m32), _downscale_to_16(relu_m32)

    def f(x: int) -> int:
        v = fp.wrap16(x - z_in)
        hires = fp.wrap16(v * 128)
        preshift = fp.srdhm16(hires, out_m16)
        reluish = hires
        if relu_exp > 0:
            reluish = _sat_shl16(reluish, relu_exp - 1)
        reluish = fp.srdhm16(reluish, relu_m16)
        if relu_exp > 0:
            reluish = _sat_shl16(reluish, 1)
        if relu_exp < 0:
            reluish = _rdivpot16(reluish, -relu_exp)
        reluish = fp.wrap16((reluish + (1 << 15)) >> 1)
        out = _rdivpot16(_sdhm16(reluish, preshift), -out_exp)
        return fp.wrap16(out + z_out)
    return f


def _sigmoid_params(s_in: float) -> tuple[int, int, int]:
    """(multiplier, left shift, radius) of TFLM's int8 LOGISTIC/TANH prepare (4 integer bits)."""
    real = s_in * float(1 << 27)
    q, left_shift = math.frexp(real)
    multiplier = fp.wrap32(_round(q * (1 << 31)))
    radius = math.floor(15 * (1 << 27) / 2.0 ** left_shift)
    return multiplier, left_shift, radius


def _saturating(s_in: float, z_in: int, curve, out_shift: int, offset: int) -> Callable[[int], int]:
    """TFLM's int8 LOGISTIC/TANH: saturate outside the radius, else the fixed-point curve."""
    mult, shift, radius = _sigmoid_params(s_in)

    def f(x: int) -> int:
        v = x - z_in
        if v <= -radius:
            return -128
        if v >= radius:
            return 127
        q4 = fp.mul_by_quantized_multiplier(v, mult, shift)
        return fp.rdivpot(curve(q4, 4), out_shift) + offset
    return f


def _logistic(op: Op, s_in: float, z_in: int, s_out: float, z_out: int) -> Callable[[int], int]:
    return _saturating(s_in, z_in, fp.logistic, 23, -128)


def _tanh(op: Op, s_in: float, z_in: int, s_out: float, z_out: int) -> Callable[[int], int]:
    # TFLM's int8 TANH writes a fixed 1/128 scale, zero point 0, whatever the output says.
    return _saturating(s_in, z_in, fp.tanh, 24, 0)


def requantize_fn(s_in: float, z_in: int, s_out: float, z_out: int) -> Callable[[int], int]:
    """TFLM's Requantize (QUANTIZE between integer types) on one value, before clamping."""
    mult, shift = quantize_multiplier(s_in / s_out)
    return lambda x: fp.mul_by_quantized_multiplier(x - z_in, mult, shift) + z_out


def _quantize(op: Op, s_in: float, z_in: int, s_out: float, z_out: int) -> Callable[[int], int]:
    return requantize_fn(s_in, z_in, s_out, z_out)


EMULATORS = {"RELU": _relu, "RELU6": _relu6, "LEAKY_RELU": _leaky_relu, "HARD_SWISH": _hard_swish,
             "LOGISTIC": _logistic, "TANH": _tanh, "QUANTIZE": _quantize}
LUT_KINDS = frozenset(EMULATORS)


def lut_for(op: Op) -> np.ndarray:
    """The int8 table (256 entries, by input raw byte) equal to TFLM's int8 kernel for `op`."""
    if op.kind not in EMULATORS:
        raise UnsupportedError(f"{op.where} '{op.name}': {op.kind} has no int8 lookup table")
    src, dst = op.inputs[0], op.outputs[0]
    if src.dtype != DType.INT8 or dst.dtype != DType.INT8:
        raise UnsupportedError(f"{op.where} '{op.name}': a lookup table needs int8 input and output")
    s_in, z_in = _qparams(src, "the input", op)
    s_out, z_out = _qparams(dst, "the output", op)
    if op.kind == "LOGISTIC" and z_out != -128:
        raise UnsupportedError(f"{op.where} '{op.name}': int8 LOGISTIC needs output zero point -128 (TFLM)")
    return _table(EMULATORS[op.kind](op, s_in, z_in, s_out, z_out))


def byte_table(fn: Callable[[int], int], src: DType, dst: DType) -> np.ndarray:
    """A 256-entry table between 8-bit types: entry b is fn(value of byte b) clamped to dst."""
    lo, hi = (-128, 127) if dst == DType.INT8 else (0, 255)
    values = range(-128, 128) if src == DType.INT8 else range(256)
    out = np.empty(256, dtype=np.int32)
    for x in values:
        out[x & 0xFF] = min(max(fn(x), lo), hi)
    return out.astype(dst.np).view(np.int8)


def compose(luts: list[np.ndarray]) -> np.ndarray:
    """One table applying `luts` in order (the first one to the input)."""
    if not luts:
        raise ValueError("compose needs at least one table")
    result = np.asarray(luts[0], dtype=np.int8)
    for t in luts[1:]:
        result = np.asarray(t, dtype=np.int8)[result.view(np.uint8)]
    return result.copy()


def apply(lut: np.ndarray, x: np.ndarray) -> np.ndarray:
    """What mf_lut_s8 computes, in numpy (for tests and constant folding)."""
    return np.asarray(lut, dtype=np.int8)[np.asarray(x, dtype=np.int8).view(np.uint8)]
