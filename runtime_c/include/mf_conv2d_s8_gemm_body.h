/* CONV_2D int8 as a GEMM over pairs of output pixels (any kernel size, stride, dilation, padding).
 *
 * For each pair of output pixels p, p+1 (NHWC raster order, across rows and batches; an odd last
 * pixel is paired with itself): both windows are read from the input and extended to int16 pairs
 * into scratch (taps outside the image take the input zero point, which the bias fold cancels;
 * the depth is padded to a multiple of 4 with zeros, whose weights are zero). Then every pair of
 * output channels is a 2x2 block: 4 accumulators, each step loads 4 words of the two columns and
 * 4 words of the two channels' pre-extended weights and issues 8 SMLAD (16 MACs).
 *
 * Access order (the memory planner's contract): both windows of a pair are read completely before
 * anything of the pair is written; pixel p is then written channel by channel while pixel p+1's
 * values wait in scratch, and are written after p is complete. So every input read happens no
 * later than in the reference kernel's order and every write no earlier: pixel p+1 is never
 * written before pixel p is complete, and a residual operand (fused epilogue) is read at index i
 * right before output i is stored, in increasing i.
 *
 * Scratch: depth * 4 bytes of columns, then depth bytes for gathering a window whose channel
 * count is not a multiple of 4, then out_c bytes for pixel p+1 (mf_conv2d_s8_gemm_scratch() in
 * microfuse/lower/fast.py). */
#ifndef MF_CONV2D_S8_GEMM_BODY_H
#define MF_CONV2D_S8_GEMM_BODY_H

#include "mf_fast.h"

/* One word holding the int16 pair (v, v). */
MF_INLINE uint32_t mf_pair(int32_t v)
{
    return ((uint32_t)v & 0xFFFFu) * 0x10001u;
}

/* Window of output pixel (image, oy, ox) -> int16 pairs in column slot `slot` (0 or 1):
 * block b of four depth values goes to cols[4 b + 2 slot], cols[4 b + 2 slot + 1]. */
static void load_window(const mf_conv2d_s8_gemm_params *p, const int8_t *image, int32_t oy,
                        int32_t ox, uint32_t *cols, int8_t *col8, int slot)
{
    const int32_t y0 = oy * p->stride_h - p->pad_h;
    const int32_t x0 = ox * p->stride_w - p->pad_w;
    const int32_t c = p->in_c;
    uint32_t *dst = cols + 2 * slot;
    int32_t ky, kx, i;

    if (p->pointwise) {
        const int8_t *src = image + (oy * p->in_w + ox) * c;
        for (i = 0; i < c; i += 4, dst += 4) {
            mf_extend4(src + i, dst);
        }
        return;
    }
    if (c % 4 == 0) {
        const uint32_t zp = mf_pair(p->in_zero_point);
        for (ky = 0; ky < p->k_h; ky++) {
            const int32_t iy = y0 + ky * p->dilation_h;
            for (kx = 0; kx < p->k_w; kx++) {
                const int32_t ix = x0 + kx * p->dilation_w;
                if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w) {
                    for (i = 0; i < c; i += 4, dst += 4) {
                        dst[0] = zp;
                        dst[1] = zp;
                    }
                } else {
                    const int8_t *src = image + (iy * p->in_w + ix) * c;
                    for (i = 0; i < c; i += 4, dst += 4) {
                        mf_extend4(src + i, dst);
                    }
                }
            }
        }
        return;
    }
    {
        /* Channels not a multiple of 4: gather the int8 window first, then extend it. */
        int8_t *g = col8;
        const int8_t zp8 = (int8_t)p->in_zero_point;
        for (ky = 0; ky < p->k_h; ky++) {
            const int32_t iy = y0 + ky * p->dilation_h;
            for (kx = 0; kx < p->k_w; kx++) {
                const int32_t ix = x0 + kx * p->dilation_w;
                if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w) {
                    for (i = 0; i < c; i++) {
                        *g++ = zp8;
                    }
                } else {
                    const int8_t *src = image + (iy * p->in_w + ix) * c;
                    for (i = 0; i < c; i++) {
                        *g++ = src[i];
                    }
                }
            }
        }
        while (g < col8 + p->depth) {
            *g++ = 0;
        }
        for (i = 0; i < p->depth; i += 4, dst += 4) {
            mf_extend4(col8 + i, dst);
        }
    }
}

/* Four SMLADs of one weight channel (two words) against both columns (four words). */
#define MF_GEMM_STEP(xa0, xa1, xb0, xb1, w, a, b) \
    do {                                            \
        const uint32_t w0_ = (w)[0], w1_ = (w)[1];  \
        a = mf_smlad(xa0, w0_, a);                  \
        a = mf_smlad(xa1, w1_, a);                  \
        b = mf_smlad(xb0, w0_, b);                  \
        b = mf_smlad(xb1, w1_, b);                  \
    } while (0)

/* Requantize and clamp one channel's two accumulators (pixels p and p+1), its constants loaded once. */
MF_INLINE void mf_gemm_out2(int32_t *a, int32_t *b, const mf_fast_q *q, int32_t lo, int32_t hi)
{
    const int32_t m = q->mult, ls = q->lshift, rs = q->rshift, rd = q->round;
    int32_t ra = mf_smmulr((int32_t)((uint32_t)*a << ls), m);
    int32_t rb = mf_smmulr((int32_t)((uint32_t)*b << ls), m);
    ra = (ra + rd + (ra >> 31)) >> rs;
    rb = (rb + rd + (rb >> 31)) >> rs;
    *a = MF_CLAMP(ra, lo, hi);
    *b = MF_CLAMP(rb, lo, hi);
}

MF_BODY void mf_conv2d_s8_gemm_body(const mf_conv2d_s8_gemm_params *p, const mf_epilogue_s8 *e,
                                    int kind, const int8_t *input, const int8_t *res,
                                    int8_t *output, void *scratch)
{
    uint32_t *cols = (uint32_t *)scratch;
    int8_t *col8 = (int8_t *)(cols + p->depth);
    int8_t *stage = col8 + p->depth;
    const int32_t blocks = p->depth / 4;
    const int32_t oc_n = p->out_c;
    const int32_t lo = p->act_min, hi = p->act_max;
    const int32_t image_size = p->in_h * p->in_w * p->in_c;
    int32_t n = 0, oy = 0, ox = 0;
    int32_t pix = 0;
    const int32_t total = p->batches * p->out_h * p->out_w;

    while (pix < total) {
        const int has_b = pix + 1 < total;
        int8_t *out_a = output + pix * oc_n;
        const uint32_t *w = (const uint32_t *)p->weights;
        int32_t oc, c;

        load_window(p, input + n * image_size, oy, ox, cols, col8, 0);
        if (++ox == p->out_w) {
            ox = 0;
            if (++oy == p->out_h) {
                oy = 0;
                n++;
            }
        }
        if (has_b) {
            load_window(p, input + n * image_size, oy, ox, cols, col8, 1);
            if (++ox == p->out_w) {
                ox = 0;
                if (++oy == p->out_h) {
                    oy = 0;
                    n++;
                }
            }
        } else {
            for (c = 0; c < blocks; c++) {
                cols[4 * c + 2] = cols[4 * c];
                cols[4 * c + 3] = cols[4 * c + 1];
            }
        }

        for (oc = 0; oc < oc_n; oc += 2) {
            const mf_fast_q *q = mf_fast_quant(p->quant) + oc;
            int32_t a0 = q[0].bias, b0 = a0, a1 = q[1].bias, b1 = a1;
            const uint32_t *x = cols;
            int32_t k = blocks;
#if MF_DSP && defined(__GNUC__)
            {
                /* One block (16 MACs) per turn: 4 LDRD + 8 SMLAD, in assembly so that the 4
                 * accumulators, 2 pointers and the counter stay in registers. */
                uint32_t xa0, xa1, xb0, xb1, w0, w1;
                __asm__ volatile(
                    "1:\n\t"
                    "ldrd %[xa0], %[xa1], [%[x]], #8\n\t"
                    "ldrd %[xb0], %[xb1], [%[x]], #8\n\t"
                    "ldrd %[w0], %[w1], [%[w]], #8\n\t"
                    "smlad %[a0], %[xa0], %[w0], %[a0]\n\t"
                    "smlad %[a0], %[xa1], %[w1], %[a0]\n\t"
                    "smlad %[b0], %[xb0], %[w0], %[b0]\n\t"
                    "smlad %[b0], %[xb1], %[w1], %[b0]\n\t"
                    "ldrd %[w0], %[w1], [%[w]], #8\n\t"
                    "smlad %[a1], %[xa0], %[w0], %[a1]\n\t"
                    "smlad %[a1], %[xa1], %[w1], %[a1]\n\t"
                    "smlad %[b1], %[xb0], %[w0], %[b1]\n\t"
                    "smlad %[b1], %[xb1], %[w1], %[b1]\n\t"
                    "subs %[k], %[k], #1\n\t"
                    "bne 1b\n\t"
                    : [a0] "+r"(a0), [b0] "+r"(b0), [a1] "+r"(a1), [b1] "+r"(b1), [x] "+r"(x),
                      [w] "+r"(w), [k] "+r"(k), [xa0] "=&r"(xa0), [xa1] "=&r"(xa1),
                      [xb0] "=&r"(xb0), [xb1] "=&r"(xb1), [w0] "=&r"(w0), [w1] "=&r"(w1)
                    :
                    : "cc", "memory");
            }
#else
            for (; k >= 2; k -= 2) {
                uint32_t xa0 = x[0], xa1 = x[1], xb0 = x[2], xb1 = x[3];
                MF_GEMM_STEP(xa0, xa1, xb0, xb1, w, a0, b0);
                MF_GEMM_STEP(xa0, xa1, xb0, xb1, w + 2, a1, b1);
                xa0 = x[4], xa1 = x[5], xb0 = x[6], xb1 = x[7];
                MF_GEMM_STEP(xa0, xa1, xb0, xb1, w + 4, a0, b0);
                MF_GEMM_STEP(xa0, xa1, xb0, xb1, w + 6, a1, b1);
                x += 8;
                w += 8;
            }
            if (k) {
                const uint32_t xa0 = x[0], xa1 = x[1], xb0 = x[2], xb1 = x[3];
                MF_GEMM_STEP(xa0, xa1, xb0, xb1, w, a0, b0);
                MF_GEMM_STEP(xa0, xa1, xb0, xb1, w + 2, a1, b1);
                w += 4;
            }
#endif
            mf_gemm_out2(&a0, &b0, q, lo, hi);
            out_a[oc] = mf_ep_s8(e, kind, a0, res, pix * oc_n + oc);
            stage[oc] = (int8_t)b0;
            if (oc + 1 < oc_n) {
                mf_gemm_out2(&a1, &b1, q + 1, lo, hi);
                out_a[oc + 1] = mf_ep_s8(e, kind, a1, res, pix * oc_n + oc + 1);
                stage[oc + 1] = (int8_t)b1;
            }
        }
        if (has_b) {
            int8_t *out_b = out_a + oc_n;
            for (c = 0; c < oc_n; c++) {
                out_b[c] = mf_ep_s8(e, kind, stage[c], res, (pix + 1) * oc_n + c);
            }
        }
        pix += 2;
    }
}

#endif /* MF_CONV2D_S8_GEMM_BODY_H */
