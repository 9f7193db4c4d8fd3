/* DEPTHWISE_CONV_2D int8, depth multiplier 1, channels a multiple of 4 (any kernel size, stride,
 * dilation, padding; int8 weights in flash; no scratch).
 *
 * Per output pixel (NHWC raster order, or last to first when p->reverse), per group of four
 * channels: a tap is one word of four input channels and one word of their four weights, both
 * split by SXTB16 into (c0, c2) and (c1, c3), and four MACs (SMLABB / SMLATT). Pixels whose
 * window lies inside the image run without bounds checks (3x3 with horizontal dilation 1: the
 * nine taps unrolled in assembly); border pixels check each tap, and a tap outside the image
 * reads the input zero point (which the bias fold cancels, as TFLite's skipped taps). Then the
 * four requantized values go through the epilogue and are stored.
 *
 * Access order (the planner's unstaged pixel units): a group reads only its pixel's window
 * and, after it, writes its own four channels; pixels never interleave; reversed, the groups of
 * a pixel run last to first too, so a residual operand is read in decreasing order (four
 * elements, all read before they are stored). */
#ifndef MF_DWCONV2D_S8_DSP_BODY_H
#define MF_DWCONV2D_S8_DSP_BODY_H

#include "mf_fast.h"

/* One tap of four channels: input word x, weight word w. */
#define MF_DW_TAP(x, w, a0, a1, a2, a3)                              \
    do {                                                              \
        const uint32_t xe_ = mf_sxtb16(x), xo_ = mf_sxtb16_ror8(x);   \
        const uint32_t we_ = mf_sxtb16(w), wo_ = mf_sxtb16_ror8(w);   \
        a0 = mf_smlabb(xe_, we_, a0);                                 \
        a2 = mf_smlatt(xe_, we_, a2);                                 \
        a1 = mf_smlabb(xo_, wo_, a1);                                 \
        a3 = mf_smlatt(xo_, wo_, a3);                                 \
    } while (0)

#if MF_DSP && defined(__GNUC__)
/* The nine taps of a 3x3 window inside the image: x is its top-left word, cs the bytes between
 * taps of a row (channels), rs between rows. 10 instructions per tap. */
#define MF_DW_ASM_TAP(addr)                    \
    "ldr %[x], " addr "\n\t"                   \
    "ldr %[w], [%[wp]], #4\n\t"                \
    "sxtb16 %[xo], %[x], ror #8\n\t"           \
    "sxtb16 %[x], %[x]\n\t"                    \
    "sxtb16 %[wo], %[w], ror #8\n\t"           \
    "sxtb16 %[w], %[w]\n\t"                    \
    "smlabb %[a0], %[x], %[w], %[a0]\n\t"      \
    "smlatt %[a2], %[x], %[w], %[a2]\n\t"      \
    "smlabb %[a1], %[xo], %[wo], %[a1]\n\t"    \
    "smlatt %[a3], %[xo], %[wo], %[a3]\n\t"
#define MF_DW_ASM_ROW                                   \
    MF_DW_ASM_TAP("[%[r]]")                             \
    MF_DW_ASM_TAP("[%[r], %[cs]]")                      \
    MF_DW_ASM_TAP("[%[r], %[cs], lsl #1]")

MF_INLINE void mf_dw_taps3x3(const int8_t *r, int32_t cs, int32_t rs, const uint32_t **wpp,
                             int32_t *acc)
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    const uint32_t *wp = *wpp;
    uint32_t x, xo, w, wo;
    __asm__ volatile(MF_DW_ASM_ROW
                     "add %[r], %[r], %[rs]\n\t" MF_DW_ASM_ROW
                     "add %[r], %[r], %[rs]\n\t" MF_DW_ASM_ROW
                     : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [wp] "+r"(wp),
                       [r] "+r"(r), [x] "=&r"(x), [xo] "=&r"(xo), [w] "=&r"(w), [wo] "=&r"(wo)
                     : [cs] "r"(cs), [rs] "r"(rs)
                     : "memory");
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
    *wpp = wp;
}
#endif

MF_BODY void mf_dwconv2d_s8_dsp_body(const mf_dwconv2d_s8_dsp_params *p, const mf_epilogue_s8 *e,
                                     const mf_fast_addsub *aq, int kind, const int8_t *input,
                                     const int8_t *res, int8_t *output)
{
    const int32_t c = p->in_c, groups = c / 4, taps = p->k_h * p->k_w;
    const int32_t hw = p->out_h * p->out_w, total = p->batches * hw;
    const int32_t dh = p->dilation_h, dw = p->dilation_w;
    const int32_t row_bytes = p->in_w * c;
    const int32_t span_h = (p->k_h - 1) * dh, span_w = (p->k_w - 1) * dw;
    const uint32_t zp4 = ((uint32_t)p->in_zero_point & 0xFFu) * 0x01010101u;
    const int32_t lo = p->act_min, hi = p->act_max;
    int32_t t;

    for (t = 0; t < total; t++) {
        const int32_t pix = p->reverse ? total - 1 - t : t;
        const int32_t n = pix / hw, r = pix - n * hw, oy = r / p->out_w, ox = r - oy * p->out_w;
        const int8_t *image = input + n * p->in_h * row_bytes;
        const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
        const int inside = y0 >= 0 && x0 >= 0 && y0 + span_h < p->in_h && x0 + span_w < p->in_w;
        const int8_t *corner = inside ? image + (y0 * p->in_w + x0) * c : image;
        int32_t gi;

        for (gi = 0; gi < groups; gi++) {
            const int32_t g = p->reverse ? groups - 1 - gi : gi;
            const uint32_t *w = (const uint32_t *)(const void *)p->weights + g * taps;
            const mf_fast_q *q = mf_fast_quant(p->quant) + 4 * g;
            const int32_t first = pix * c + 4 * g;
            int32_t acc[4];
            int32_t ky, kx;
            mf_fast_bias4(q, acc);
#if MF_DSP && defined(__GNUC__)
            if (inside && taps == 9 && p->k_w == 3 && dw == 1) {
                mf_dw_taps3x3(corner + 4 * g, c, row_bytes * dh, &w, acc);
            } else
#endif
            if (inside) {
                for (ky = 0; ky < p->k_h; ky++) {
                    const int8_t *x = corner + ky * dh * row_bytes + 4 * g;
                    for (kx = 0; kx < p->k_w; kx++, x += dw * c) {
                        const uint32_t xw = mf_load32(x), ww = *w++;
                        MF_DW_TAP(xw, ww, acc[0], acc[1], acc[2], acc[3]);
                    }
                }
            } else {
                for (ky = 0; ky < p->k_h; ky++) {
                    const int32_t iy = y0 + ky * dh;
                    for (kx = 0; kx < p->k_w; kx++) {
                        const int32_t ix = x0 + kx * dw;
                        const uint32_t ww = *w++;
                        const uint32_t xw = iy >= 0 && iy < p->in_h && ix >= 0 && ix < p->in_w
                                                ? mf_load32(image + (iy * p->in_w + ix) * c + 4 * g)
                                                : zp4;
                        MF_DW_TAP(xw, ww, acc[0], acc[1], acc[2], acc[3]);
                    }
                }
            }
            mf_fast_store4(acc[0], acc[1], acc[2], acc[3], q, lo, hi, e, aq, kind, res,
                           output + first, first, 4);
        }
    }
}

#endif /* MF_DWCONV2D_S8_DSP_BODY_H */
