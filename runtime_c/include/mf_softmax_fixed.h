/* microfuse runtime: gemmlowp fixed-point helpers and the one body of the int8-input SOFTMAX
 * kernels (included by mf_softmax_s8.c and mf_softmax_s16.c only: static functions, each file
 * uses all of them). */
#ifndef MF_SOFTMAX_FIXED_H
#define MF_SOFTMAX_FIXED_H

#include "mf_softmax.h"

/* gemmlowp SaturatingRoundingMultiplyByPOT with a positive exponent: saturating left shift. */
static int32_t mf_sat_shl(int32_t x, int exponent)
{
    const int32_t threshold = (int32_t)((1LL << (31 - exponent)) - 1);
    if (x > threshold) {
        return INT32_MAX;
    }
    if (x < -threshold) {
        return INT32_MIN;
    }
    return (int32_t)((uint32_t)x << exponent);
}

static int32_t mf_rounding_half_sum(int32_t a, int32_t b)
{
    const int64_t sum = (int64_t)a + (int64_t)b;
    return (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
}

/* 1 / (1 + a) for a in [0, 1), Q0.31 in and out (gemmlowp one_over_one_plus_x_for_x_in_0_1). */
static int32_t mf_one_over_one_plus_x(int32_t a)
{
    const int32_t half_denominator = mf_rounding_half_sum(a, INT32_MAX);
    int32_t x = (int32_t)((uint32_t)1515870810 +
                          (uint32_t)mf_sat_round_doubling_high_mul(half_denominator, -1010580540));
    int i;
    for (i = 0; i < 3; ++i) {
        const int32_t hdx = mf_sat_round_doubling_high_mul(half_denominator, x);
        const int32_t one_minus = (int32_t)((uint32_t)(1 << 29) - (uint32_t)hdx);
        x = (int32_t)((uint32_t)x + (uint32_t)mf_sat_shl(mf_sat_round_doubling_high_mul(x, one_minus), 2));
    }
    return mf_sat_shl(x, 1);
}

static int mf_clz32(uint32_t x)
{
    int n = 0;
    if (x == 0) {
        return 32;
    }
    while (!(x & 0x80000000u)) {
        x <<= 1;
        ++n;
    }
    return n;
}

/* TFLite's int8-input softmax (reference_ops::Softmax): exp in Q5.26 -> Q0.31 from the table, sums
 * in Q12.19, reciprocal by Newton-Raphson; the output has `bits` bits (8: int8, zero point -128;
 * 16: int16, zero point -32768), a constant at each call. */
MF_INLINE void mf_softmax_s8_body(const mf_softmax_s8_params *p, const int8_t *in, void *out, int bits)
{
    const int32_t lo = bits == 8 ? -128 : -32768, hi = bits == 8 ? 127 : 32767;
    int32_t row, c;
    for (row = 0; row < p->outer; ++row) {
        const int8_t *x = in + row * p->depth;
        int8_t *y8 = (int8_t *)out + row * p->depth;    /* the output row: bits 8 ... */
        int16_t *y16 = (int16_t *)out + row * p->depth; /* ... or 16 */
        int32_t max = -128, sum = 0, scale, exponent;
        int headroom;
        for (c = 0; c < p->depth; ++c) {
            max = MF_MAX(max, (int32_t)x[c]);
        }
        for (c = 0; c < p->depth; ++c) {
            /* Rescale Q0.31 -> Q12.19; sums wrap like TFLite's int32 adds */
            sum = (int32_t)((uint32_t)sum + (uint32_t)mf_rounding_divide_by_pot(p->exp_lut[max - x[c]], 12));
        }
        headroom = mf_clz32((uint32_t)sum);
        scale = mf_one_over_one_plus_x((int32_t)(((uint32_t)sum << headroom) - 0x80000000u));
        exponent = (12 - headroom) + 31 - bits;
        for (c = 0; c < p->depth; ++c) {
            const int32_t e = p->exp_lut[max - x[c]];
            const int32_t o = mf_rounding_divide_by_pot(mf_sat_round_doubling_high_mul(scale, e), exponent) + lo;
            if (bits == 8) {
                y8[c] = (int8_t)MF_CLAMP(o, lo, hi);
            } else {
                y16[c] = (int16_t)MF_CLAMP(o, lo, hi);
            }
        }
    }
}

#endif /* MF_SOFTMAX_FIXED_H */
