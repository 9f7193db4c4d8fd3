/* microfuse runtime: gemmlowp fixed-point helpers of the int8-input SOFTMAX kernels (included by
 * mf_softmax_s8.c and mf_softmax_s16.c only: static functions, each file uses all of them). */
#ifndef MF_SOFTMAX_FIXED_H
#define MF_SOFTMAX_FIXED_H

#include "mf_common.h"

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

#endif /* MF_SOFTMAX_FIXED_H */
