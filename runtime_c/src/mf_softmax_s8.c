/* microfuse runtime: int8 SOFTMAX, bit-exact with TFLite Micro's reference kernel (gemmlowp
 * fixed point: exp in Q5.26 -> Q0.31, sums in Q12.19, reciprocal by Newton-Raphson). The exp of
 * every possible row-max difference (0..255) is a compile-time table. */
#include "mf_softmax.h"
#include "mf_softmax_fixed.h"

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
