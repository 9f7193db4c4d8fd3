/* CONV_2D and FULLY_CONNECTED 16x8 on SMLALD: see mf_conv16_fast.h. */
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

/* One tap of four output channels: `pairs` channel pairs, then the odd channel's word. */
MF_INLINE void mf_tap4(const int16_t *x, const uint32_t *w, int32_t pairs, int32_t odd, int64_t *a)
{
    for (int32_t i = 0; i < pairs; ++i, x += 2, w += 2) {
        const uint32_t xv = mf_load32(x), w01 = w[0], w23 = w[1];
        a[0] = mf_smlald(xv, mf_sxtb16(w01), a[0]);
        a[1] = mf_smlald(xv, mf_sxtb16_ror8(w01), a[1]);
        a[2] = mf_smlald(xv, mf_sxtb16(w23), a[2]);
        a[3] = mf_smlald(xv, mf_sxtb16_ror8(w23), a[3]);
    }
    if (odd) {
        const int32_t xs = x[0];
        const uint32_t wl = w[0];
        for (int32_t c = 0; c < 4; ++c) {
            a[c] += xs * (int32_t)(int8_t)(uint8_t)(wl >> (8 * c));
        }
    }
}

void mf_conv2d_s16_dsp(const mf_conv2d_s16_dsp_params *p, const int16_t *input, int16_t *output)
{
    const int32_t step = p->out_stride ? p->out_stride : p->out_c;
    const int32_t pairs = p->in_c / 2, odd = p->in_c & 1, tap_words = 2 * pairs + odd;
    const int32_t block_words = tap_words * p->k_h * p->k_w;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *in = input + (size_t)b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += step) {
                const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                const uint32_t *wb = p->weights;
                for (int32_t oc = 0; oc < p->out_c; oc += 4, wb += block_words) {
                    int64_t a[4] = {0, 0, 0, 0};
                    for (int32_t ky = 0; ky < p->k_h; ++ky) {
                        const int32_t iy = y0 + ky * p->dilation_h;
                        if (iy < 0 || iy >= p->in_h) {
                            continue;
                        }
                        for (int32_t kx = 0; kx < p->k_w; ++kx) {
                            const int32_t ix = x0 + kx * p->dilation_w;
                            if (ix >= 0 && ix < p->in_w) {
                                mf_tap4(in + ((size_t)iy * p->in_w + ix) * p->in_c,
                                        wb + (size_t)(ky * p->k_w + kx) * tap_words, pairs, odd, a);
                            }
                        }
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
