/* microfuse runtime: SOFTMAX with int16 output, bit-exact with TFLite Micro (softmax.cc):
 * int8 -> int16 is reference_ops::Softmax with 16 output bits, int16 -> int16 SoftmaxInt16. */
#include "mf_softmax_fixed.h"

/* As mf_softmax_s8 (mf_softmax_fixed.h's body), with the output shifted for 16 bits and zero point
 * -32768 (scale 1/65536). */
void mf_softmax_s8_s16(const mf_softmax_s8_params *p, const int8_t *in, int16_t *out)
{
    mf_softmax_s8_body(p, in, out, 16);
}

/* TFLite's generic_int16_table_lookup: 512 steps of 128 inputs, the 513th entry only for the slope. */
MF_INLINE int16_t mf_lut513(const int16_t *lut, int16_t x)
{
    const int32_t index = 256 + (x >> 7);
    const int16_t slope = (int16_t)(lut[index + 1] - lut[index]);
    return (int16_t)(lut[index] + ((slope * (x & 0x7f) + 64) >> 7));
}

static int mf_clz32_s16(uint32_t x)
{
    int n = 0;
    while (!(x & 0x80000000u)) { /* x > 0: the row max contributes exp(0) */
        x <<= 1;
        ++n;
    }
    return n;
}

void mf_softmax_s16(const mf_softmax_s16_params *p, const int16_t *in, int16_t *out)
{
    int32_t row, c;
    for (row = 0; row < p->outer; ++row) {
        const int16_t *x = in + row * p->depth;
        int16_t *y = out + row * p->depth;
        int32_t max = INT16_MIN, sum = 0, shifted, centred;
        int16_t reciprocal;
        int headroom, right;
        for (c = 0; c < p->depth; ++c) {
            max = MF_MAX(max, (int32_t)x[c]);
        }
        for (c = 0; c < p->depth; ++c) { /* exp in Q0.15, summed in Q16.15 */
            const int32_t scaled = mf_requantize(x[c] - max, p->input_multiplier, p->input_shift) + 32767;
            y[c] = mf_lut513(p->exp_lut, (int16_t)MF_CLAMP(scaled, -32768, 32767));
            sum += y[c];
        }
        headroom = mf_clz32_s16((uint32_t)sum);
        /* 1 / sum: the sum normalised to [1, 2), minus 1, recentred to [-32768, 32767] */
        shifted = (int32_t)((((int64_t)sum << (headroom - 1)) + (1 << 13)) >> 14);
        centred = shifted - ((1 << 15) + (1 << 16));
        reciprocal = mf_lut513(p->recip_lut, (int16_t)MF_CLAMP(centred, -32768, 32767));
        right = 31 - headroom;
        for (c = 0; c < p->depth; ++c) {
            const int32_t r = (int32_t)(((int64_t)y[c] * reciprocal + ((int64_t)1 << (right - 1))) >> right);
            y[c] = (int16_t)MF_CLAMP(r, 0, 32767);
        }
    }
}
