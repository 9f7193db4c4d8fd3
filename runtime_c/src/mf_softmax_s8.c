/* microfuse runtime: int8 SOFTMAX, bit-exact with TFLite Micro's reference kernel (gemmlowp
 * fixed point: exp in Q5.26 -> Q0.31, sums in Q12.19, reciprocal by Newton-Raphson). The exp of
 * every possible row-max difference (0..255) is a compile-time table. */
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

void mf_softmax_s8(const mf_softmax_s8_params *p, const int8_t *in, int8_t *out)
{
    int32_t row, c;
    for (row = 0; row < p->outer; ++row) {
        const int8_t *x = in + row * p->depth;
        int8_t *y = out + row * p->depth;
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
        exponent = (12 - headroom) + 31 - 8;
        for (c = 0; c < p->depth; ++c) {
            const int32_t e = p->exp_lut[max - x[c]];
            const int32_t o = mf_rounding_divide_by_pot(mf_sat_round_doubling_high_mul(scale, e), exponent) - 128;
            y[c] = (int8_t)MF_CLAMP(o, -128, 127);
        }
    }
}
