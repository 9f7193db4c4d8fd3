/* CONV_2D and FULLY_CONNECTED 16x8 on SMLAD / SMLALD: see mf_conv16_fast.h. */
#include "mf_conv16_fast.h"

/* acc + lo(a) * lo(b) + hi(a) * hi(b), in 64 bits */
MF_INLINE int64_t mf_smlald(uint32_t a, uint32_t b, int64_t acc)
{
#if MF_DSP
    uint32_t lo = (uint32_t)acc, hi = (uint32_t)((uint64_t)acc >> 32);
    __asm__("smlald %0, %1, %2, %3" : "+r"(lo), "+r"(hi) : "r"(a), "r"(b));
    return (int64_t)(((uint64_t)hi << 32) | lo);
#else
    return acc + (int32_t)(int16_t)(a & 0xFFFFu) * (int32_t)(int16_t)(b & 0xFFFFu)
           + (int32_t)(int16_t)(a >> 16) * (int32_t)(int16_t)(b >> 16);
#endif
}

/* The sums of one output pixel for one block of four channels. `narrow`: int32 accumulators
 * (SMLAD), which lowering proved cannot overflow; else int64 ones (SMLALD). A constant at each
 * call, so each case is its own loop. */
MF_INLINE void mf_block4(const mf_conv2d_s16_dsp_params *p, const int16_t *in, int32_t y0, int32_t x0,
                         const uint32_t *wb, int32_t narrow, int64_t *out)
{
    const int32_t pairs = p->in_c / 2, odd = p->in_c & 1, tap_words = 2 * pairs + odd;
    int32_t n0 = 0, n1 = 0, n2 = 0, n3 = 0;
    int64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int32_t ky = 0; ky < p->k_h; ++ky) {
        const int32_t iy = y0 + ky * p->dilation_h;
        if (iy < 0 || iy >= p->in_h) {
            continue;
        }
        for (int32_t kx = 0; kx < p->k_w; ++kx) {
            const int32_t ix = x0 + kx * p->dilation_w;
            if (ix < 0 || ix >= p->in_w) {
                continue;
            }
            const int16_t *x = in + ((size_t)iy * p->in_w + ix) * p->in_c;
            const uint32_t *w = wb + (size_t)(ky * p->k_w + kx) * tap_words;
            for (int32_t i = 0; i < pairs; ++i, x += 2, w += 2) {
                const uint32_t xv = mf_load32(x), w01 = w[0], w23 = w[1];
                if (narrow) {
                    n0 = mf_smlad(xv, mf_sxtb16(w01), n0);
                    n1 = mf_smlad(xv, mf_sxtb16_ror8(w01), n1);
                    n2 = mf_smlad(xv, mf_sxtb16(w23), n2);
                    n3 = mf_smlad(xv, mf_sxtb16_ror8(w23), n3);
                } else {
                    a0 = mf_smlald(xv, mf_sxtb16(w01), a0);
                    a1 = mf_smlald(xv, mf_sxtb16_ror8(w01), a1);
                    a2 = mf_smlald(xv, mf_sxtb16(w23), a2);
                    a3 = mf_smlald(xv, mf_sxtb16_ror8(w23), a3);
                }
            }
            if (odd) {  /* the last channel: one int16 times the word of four int8 weights */
                const int32_t xs = x[0];
                const uint32_t wl = w[0];
                n0 += xs * (int8_t)(uint8_t)wl;
                n1 += xs * (int8_t)(uint8_t)(wl >> 8);
                n2 += xs * (int8_t)(uint8_t)(wl >> 16);
                n3 += xs * (int8_t)(uint8_t)(wl >> 24);
                if (!narrow) {  /* one tap's products fit int32 */
                    a0 += n0, a1 += n1, a2 += n2, a3 += n3;
                    n0 = n1 = n2 = n3 = 0;
                }
            }
        }
    }
    out[0] = a0 + n0, out[1] = a1 + n1, out[2] = a2 + n2, out[3] = a3 + n3;
}

void mf_conv2d_s16_dsp(const mf_conv2d_s16_dsp_params *p, const int16_t *input, int16_t *output)
{
    const int32_t step = p->out_stride ? p->out_stride : p->out_c;
    const int32_t block_words = (2 * (p->in_c / 2) + (p->in_c & 1)) * p->k_h * p->k_w;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *in = input + (size_t)b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += step) {
                const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                const uint32_t *wb = p->weights;
                for (int32_t oc = 0; oc < p->out_c; oc += 4, wb += block_words) {
                    int64_t a[4];
                    if (p->narrow) {
                        mf_block4(p, in, y0, x0, wb, 1, a);
                    } else {
                        mf_block4(p, in, y0, x0, wb, 0, a);
                    }
                    for (int32_t c = 0; c < 4 && oc + c < p->out_c; ++c) {
                        output[oc + c] = mf_out_s16(a[c] + p->bias[oc + c], p->wide, p->mult[oc + c],
                                                    p->shift[oc + c], p->act_min, p->act_max);
                    }
                }
            }
        }
    }
}
