"""Scalar emulation of gemmlowp's fixed-point arithmetic (int32/int16 with C wrap-around), as used by
TFLite Micro's int8 kernels; microfuse evaluates it at compile time to build exact tables."""

from __future__ import annotations

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def wrap32(x: int) -> int:
    """x as a C int32 (two's complement wrap-around)."""
    return (x + (1 << 31)) % (1 << 32) - (1 << 31)


def wrap16(x: int) -> int:
    return (x + (1 << 15)) % (1 << 16) - (1 << 15)


def _c_div(a: int, b: int) -> int:
    """C integer division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def srdhm(a: int, b: int) -> int:
    """SaturatingRoundingDoublingHighMul for int32."""
    if a == b == INT32_MIN:
        return INT32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    return wrap32(_c_div(ab + nudge, 1 << 31))


def srdhm16(a: int, b: int) -> int:
    """SaturatingRoundingDoublingHighMul for int16."""
    if a == b == -32768:
        return 32767
    ab = a * b
    nudge = (1 << 14) if ab >= 0 else 1 - (1 << 14)
    return wrap16(_c_div(ab + nudge, 1 << 15))


def rdivpot(x: int, exponent: int) -> int:
    """RoundingDivideByPOT: x / 2^exponent, ties away from zero."""
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if remainder > threshold else 0)


def mul_by_quantized_multiplier(x: int, multiplier: int, shift: int) -> int:
    """TFLite's MultiplyByQuantizedMultiplier (double rounding, as TFLM builds it)."""
    left, right = max(shift, 0), max(-shift, 0)
    return rdivpot(srdhm(wrap32(x * (1 << left)), multiplier), right)


def sat_mul_pot(x: int, exponent: int, bits: int = 32) -> int:
    """SaturatingRoundingMultiplyByPOT: saturating left shift or rounding right shift."""
    if exponent == 0:
        return x
    if exponent < 0:
        return rdivpot(x, -exponent)
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    threshold = (1 << (bits - 1 - exponent)) - 1
    if x > threshold:
        return hi
    if x < -threshold:
        return lo
    return x * (1 << exponent)


def rescale(x: int, src_int_bits: int, dst_int_bits: int) -> int:
    """gemmlowp Rescale between fixed-point formats of int32."""
    return sat_mul_pot(x, src_int_bits - dst_int_bits)


def rounding_half_sum(a: int, b: int) -> int:
    s = a + b
    return wrap32(_c_div(s + (1 if s >= 0 else -1), 2))


def _one(int_bits: int) -> int:
    return INT32_MAX if int_bits == 0 else 1 << (31 - int_bits)


def exp_on_interval_between_negative_one_quarter_and_0_excl(a: int) -> int:
    """exp(a) for a in [-1/4, 0), Q0.31 in and out."""
    constant_term = 1895147668
    constant_1_over_3 = 715827883
    x = wrap32(a + (1 << 28))
    x2 = srdhm(x, x)
    x3 = srdhm(x2, x)
    x4 = srdhm(x2, x2)
    x4_over_4 = sat_mul_pot(x4, -2)
    poly = sat_mul_pot(wrap32(srdhm(wrap32(x4_over_4 + x3), constant_1_over_3) + x2), -1)
    return wrap32(constant_term + srdhm(constant_term, wrap32(x + poly)))


_EXP_BARREL = ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308), (2, 39332535),
               (3, 720401), (4, 242))


def exp_on_negative_values(a: int, int_bits: int) -> int:
    """exp(a) for a <= 0 given in Q(int_bits).(31-int_bits); result Q0.31."""
    frac_bits = 31 - int_bits
    one_quarter = 1 << (frac_bits - 2)
    mask = one_quarter - 1
    a_mod_quarter_minus_one_quarter = wrap32((a & mask) - one_quarter)
    result = exp_on_interval_between_negative_one_quarter_and_0_excl(
        rescale(a_mod_quarter_minus_one_quarter, int_bits, 0))
    remainder = wrap32(a_mod_quarter_minus_one_quarter - a)
    for exponent, multiplier in _EXP_BARREL:
        if int_bits > exponent:
            shift = frac_bits + exponent
            if remainder & (1 << shift):
                result = srdhm(result, multiplier)
    if int_bits > 5:
        clamp = -(1 << (36 - int_bits))
        if a < clamp:
            result = 0
    if a == 0:
        result = INT32_MAX
    return result


def _newton_reciprocal(half_denominator: int) -> int:
    """Three Newton-Raphson steps for 1/(2*half_denominator); Q2.29 result."""
    one_f2 = 1 << 29
    x = wrap32(1515870810 + srdhm(half_denominator, -1010580540))
    for _ in range(3):
        half_denominator_times_x = srdhm(half_denominator, x)
        one_minus = wrap32(one_f2 - half_denominator_times_x)
        x = wrap32(x + rescale(srdhm(x, one_minus), 4, 2))
    return x


def one_over_one_plus_x_for_x_in_0_1(a: int) -> int:
    """1/(1+a) for a in (0, 1), Q0.31 in and out."""
    half_denominator = rounding_half_sum(a, INT32_MAX)
    return rescale(_newton_reciprocal(half_denominator), 1, 0)


def one_minus_x_over_one_plus_x_for_x_in_0_1(a: int) -> int:
    half_denominator = rounding_half_sum(a, INT32_MAX)
    x = _newton_reciprocal(half_denominator)
    return rescale(wrap32(x - (1 << 29)), 2, 0)


def logistic(a: int, int_bits: int) -> int:
    """gemmlowp::logistic of Q(int_bits) input; Q0.31 result."""
    if a == 0:
        return 1 << 30
    abs_input = a if a > 0 else wrap32(-a)
    result_if_positive = one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(wrap32(-abs_input), int_bits))
    return result_if_positive if a > 0 else wrap32(INT32_MAX - result_if_positive)


def tanh(a: int, int_bits: int) -> int:
    """gemmlowp::tanh of Q(int_bits) input; Q0.31 result."""
    if a == 0:
        return 0
    n = a if a < 0 else wrap32(-a)
    # ExactMulByPot<1>: same raw value read with one more integer bit
    t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(n, int_bits + 1))
    return wrap32(-t) if a < 0 else t


def count_leading_zeros32(x: int) -> int:
    x &= 0xFFFFFFFF
    return 32 - x.bit_length()


def get_reciprocal(x: int, x_integer_digits: int) -> tuple[int, int]:
    """TFLite's GetReciprocal: (Q0.31 of 1/x rescaled, num_bits_over_unit)."""
    headroom_plus_one = count_leading_zeros32(x)
    num_bits_over_unit = x_integer_digits - headroom_plus_one
    shifted_sum_minus_one = wrap32(((x & 0xFFFFFFFF) << headroom_plus_one) - (1 << 31))
    return one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one), num_bits_over_unit
