/* microfuse runtime: SOFTMAX with int16 output, bit-exact with TFLite Micro (softmax.cc):
 * int8 -> int16 is reference_ops::Softmax with 16 output bits. */
#include "mf_softmax.h"
#include "mf_softmax_fixed.h"

/* As mf_softmax_s8 (mf_softmax_s8.c), with the output shifted for 16 bits and zero point -32768
 * (scale 1/65536). */
void mf_softmax_s8_s16(const mf_softmax_s8_params *p, const int8_t *in, int16_t *out)
{
    int32_t row, c;
    for (row = 0; row < p->outer; ++row) {
        const int8_t *x = in + row * p->depth;
        int16_t *y = out + row * p->depth;
        int32_t max = -128, sum = 0, scale, exponent;
        int headroom;
        for (c = 0; c < p->depth; ++c) {
            max = MF_MAX(max, (int32_t)x[c]);
        }
        for (c = 0; c < p->depth; ++c) {
            sum = (int32_t)((uint32_t)sum + (uint32_t)mf_rounding_divide_by_pot(p->exp_lut[max - x[c]], 12));
        }
        headroom = mf_clz32((uint32_t)sum);
        scale = mf_one_over_one_plus_x((int32_t)(((uint32_t)sum << headroom) - 0x80000000u));
        exponent = (12 - headroom) + 31 - 16;
        for (c = 0; c < p->depth; ++c) {
            const int32_t e = p->exp_lut[max - x[c]];
            const int32_t o = mf_rounding_divide_by_pot(mf_sat_round_doubling_high_mul(scale, e), exponent) - 32768;
            y[c] = (int16_t)MF_CLAMP(o, -32768, 32767);
        }
    }
}
