/* DEPTHWISE_CONV_2D int8, depth multiplier 1, channels a multiple of 4 (any kernel size, stride,
 * dilation, padding): row-buffered, four channels per step with the DSP's 16x16 MACs.
 *
 * For each output row, the k_h input rows its windows read are extended to int16 pairs into
 * scratch (a ring of k_h rows: with dilation_h 1 each input row is extended once), `span`
 * columns each, the padding columns and rows filled with the input zero point
 * (which the bias fold cancels). A tap of four channels is then two words of inputs and two
 * words of pre-extended weights, (c0, c2) and (c1, c3), and four MACs: SMLABB / SMLATT. No
 * bounds checks remain in the inner loop. mf_dwconv2d_s8_rows3x3 is the same loop with the 3x3
 * taps unrolled (chosen by --optimize speed).
 *
 * Access order (the memory planner's contract): an output row's input rows are all read before
 * any of its pixels is written; pixels are then written in raster order, each complete (all its
 * channels, increasing) before the next. Every input read thus happens no later than in the
 * reference kernel's order and every write no earlier, and a fused residual is read at index i
 * right before output i is stored.
 *
 * Scratch: k_h * span * in_c * 2 bytes, laid out [channel group][k_h][span][2 words] (mf_dwconv2d_s8_rows_scratch() in lower/fast.py). */
#ifndef MF_DWCONV2D_S8_ROWS_BODY_H
#define MF_DWCONV2D_S8_ROWS_BODY_H

#include "mf_fast.h"

/* Extend input row iy (or a row of zero points outside the image) into row slot `slot` of the
 * scratch, laid out [group of 4 channels][k_h slots][span][2 words]: within a group the taps of
 * a window row are at fixed distances. */
static void load_row(const mf_dwconv2d_s8_rows_params *p, const int8_t *image, int32_t iy,
                     uint32_t *rows, int32_t slot)
{
    const int32_t c = p->in_c;
    const int32_t group_words = p->k_h * 2 * p->span;
    const uint32_t zp = ((uint32_t)p->in_zero_point & 0xFFFFu) * 0x10001u;
    const int inside_y = iy >= 0 && iy < p->in_h;
    int32_t j, g;

    for (j = 0; j < p->span; j++) {
        const int32_t ix = j - p->pad_w;
        uint32_t *dst = rows + slot * 2 * p->span + 2 * j;
        if (!inside_y || ix < 0 || ix >= p->in_w) {
            for (g = 0; g < c; g += 4, dst += group_words) {
                dst[0] = zp;
                dst[1] = zp;
            }
        } else {
            const int8_t *src = image + (iy * p->in_w + ix) * c;
            for (g = 0; g < c; g += 4, dst += group_words) {
                mf_extend4(src + g, dst);
            }
        }
    }
}

#define MF_DW_RING 8 /* kernels up to this height keep a ring of rows (dilation_h 1) */

/* Make the k_h rows of output row oy present; slot[ky] says where window row ky is. With
 * dilation_h 1 and k_h <= MF_DW_RING input row iy lives in slot iy mod k_h and is extended once
 * per image (held[] remembers what each slot holds); otherwise window row ky uses slot ky. */
static void load_rows(const mf_dwconv2d_s8_rows_params *p, const int8_t *image, int32_t oy,
                      uint32_t *rows, int32_t *held, int32_t *slot)
{
    const int32_t ring = p->dilation_h == 1 && p->k_h <= MF_DW_RING;
    int32_t ky;
    for (ky = 0; ky < p->k_h; ky++) {
        const int32_t iy = oy * p->stride_h - p->pad_h + ky * p->dilation_h;
        int32_t s = ky;
        if (ring) {
            s = iy % p->k_h;
            s = s < 0 ? s + p->k_h : s;
            if (held[s] == iy) {
                slot[ky] = s;
                continue;
            }
            held[s] = iy;
        }
        load_row(p, image, iy, rows, s);
        slot[ky] = s;
    }
}

/* One tap of four channels. */
#define MF_DW_TAP(x, w, a0, a1, a2, a3)            \
    do {                                            \
        const uint32_t x0_ = (x)[0], x1_ = (x)[1];  \
        const uint32_t w0_ = (w)[0], w1_ = (w)[1];  \
        a0 = mf_smlabb(x0_, w0_, a0);               \
        a2 = mf_smlatt(x0_, w0_, a2);               \
        a1 = mf_smlabb(x1_, w1_, a1);               \
        a3 = mf_smlatt(x1_, w1_, a3);               \
    } while (0)

#if MF_DSP && defined(__GNUC__)
/* The 9 taps of a 3x3 window (horizontal dilation 1) for four channels: 2 LDRD + 4 MACs each.
 * In assembly so that the compiler's scheduling cannot spill the accumulators. */
#define MF_DW_ASM_TAP(off)                                  \
    "ldrd %[x0], %[x1], [%[x], #" #off "]\n\t"              \
    "ldrd %[w0], %[w1], [%[w]], #8\n\t"                    \
    "smlabb %[a0], %[x0], %[w0], %[a0]\n\t"                \
    "smlatt %[a2], %[x0], %[w0], %[a2]\n\t"                \
    "smlabb %[a1], %[x1], %[w1], %[a1]\n\t"                \
    "smlatt %[a3], %[x1], %[w1], %[a3]\n\t"
#define MF_DW_ASM_ROW MF_DW_ASM_TAP(0) MF_DW_ASM_TAP(8) MF_DW_ASM_TAP(16)

MF_INLINE void mf_dw_taps3x3(const uint32_t *x, const uint32_t *y, const uint32_t *z,
                             const uint32_t **wp, int32_t *a0, int32_t *a1, int32_t *a2, int32_t *a3)
{
    uint32_t x0, x1, w0, w1;
    const uint32_t *w = *wp;
    __asm__ volatile(
        MF_DW_ASM_ROW
        : [a0] "+r"(*a0), [a1] "+r"(*a1), [a2] "+r"(*a2), [a3] "+r"(*a3), [w] "+r"(w),
          [x0] "=&r"(x0), [x1] "=&r"(x1), [w0] "=&r"(w0), [w1] "=&r"(w1)
        : [x] "r"(x)
        : "memory");
    __asm__ volatile(
        MF_DW_ASM_ROW
        : [a0] "+r"(*a0), [a1] "+r"(*a1), [a2] "+r"(*a2), [a3] "+r"(*a3), [w] "+r"(w),
          [x0] "=&r"(x0), [x1] "=&r"(x1), [w0] "=&r"(w0), [w1] "=&r"(w1)
        : [x] "r"(y)
        : "memory");
    __asm__ volatile(
        MF_DW_ASM_ROW
        : [a0] "+r"(*a0), [a1] "+r"(*a1), [a2] "+r"(*a2), [a3] "+r"(*a3), [w] "+r"(w),
          [x0] "=&r"(x0), [x1] "=&r"(x1), [w0] "=&r"(w0), [w1] "=&r"(w1)
        : [x] "r"(z)
        : "memory");
    *wp = w;
}
#endif

MF_INLINE int8_t mf_dw_out(int32_t acc, const mf_fast_q *q, int32_t lo, int32_t hi,
                           const mf_epilogue_s8 *e, int kind, const int8_t *res, int32_t i)
{
    int32_t v = mf_fast_requant(acc, q);
    v = MF_CLAMP(v, lo, hi);
    return mf_ep_s8(e, kind, v, res, i);
}

/* kh, kw, dil: kernel size and horizontal dilation when they are compile-time constants (taps
 * unrolled at fixed offsets), else 0. */
MF_BODY void mf_dwconv2d_s8_rows_body(const mf_dwconv2d_s8_rows_params *p, const mf_epilogue_s8 *e,
                                      int kind, const int8_t *input, const int8_t *res,
                                      int8_t *output, void *scratch, int32_t kh, int32_t kw,
                                      int32_t dil)
{
    uint32_t *rows = (uint32_t *)scratch;
    const int32_t c = p->in_c;
    const int32_t k_h = kh ? kh : p->k_h, k_w = kw ? kw : p->k_w;
    const int32_t col_step = 2 * (dil ? dil : p->dilation_w); /* words between taps of a row */
    const int32_t row_words = 2 * p->span;
    const int32_t group_words = k_h * row_words;
    const int32_t lo = p->act_min, hi = p->act_max;
    int8_t *out = output;
    int32_t held[MF_DW_RING], slot[MF_DW_RING];
    int32_t n, oy, ox, g, ky, kx;

    for (n = 0; n < p->batches; n++) {
        const int8_t *image = input + n * p->in_h * p->in_w * c;
        for (ky = 0; ky < MF_DW_RING; ky++) {
            held[ky] = INT32_MIN; /* no input row can be INT32_MIN */
        }
        for (oy = 0; oy < p->out_h; oy++) {
            load_rows(p, image, oy, rows, held, slot);
            for (ox = 0; ox < p->out_w; ox++) {
                const uint32_t *xg = rows + ox * 2 * p->stride_w;
                const uint32_t *w = (const uint32_t *)p->weights;
                const mf_fast_q *q = mf_fast_quant(p->quant);
                for (g = 0; g < c; g += 4, xg += group_words, q += 4, out += 4) {
                    int32_t a0 = q[0].bias, a1 = q[1].bias, a2 = q[2].bias, a3 = q[3].bias;
#if MF_DSP && defined(__GNUC__)
                    if (kh == 3 && kw == 3 && dil == 1) {
                        mf_dw_taps3x3(xg + slot[0] * row_words, xg + slot[1] * row_words,
                                      xg + slot[2] * row_words, &w, &a0, &a1, &a2, &a3);
                    } else
#endif
                    {
                        for (ky = 0; ky < k_h; ky++) {
                            const uint32_t *x = xg + slot[ky] * row_words;
                            for (kx = 0; kx < k_w; kx++, w += 2) {
                                MF_DW_TAP(x + kx * col_step, w, a0, a1, a2, a3);
                            }
                        }
                    }
                    {
                        const int32_t i = (int32_t)(out - output);
                        out[0] = mf_dw_out(a0, q, lo, hi, e, kind, res, i);
                        out[1] = mf_dw_out(a1, q + 1, lo, hi, e, kind, res, i + 1);
                        out[2] = mf_dw_out(a2, q + 2, lo, hi, e, kind, res, i + 2);
                        out[3] = mf_dw_out(a3, q + 3, lo, hi, e, kind, res, i + 3);
                    }
                }
            }
        }
    }
}

#endif /* MF_DWCONV2D_S8_ROWS_BODY_H */
