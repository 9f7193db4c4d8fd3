/* CONV_2D and FULLY_CONNECTED 16x8 on SMLAD: see mf_conv16_fast.h. */
#include "mf_conv16_fast.h"

/* One window row of one output pixel for a block of four channels, into int32 sums: the whole
 * row is one run of int16 values (its pixels are adjacent); each pair of them is one word that
 * SMLAD multiplies with each channel's weight pair, both loaded as they are. */
MF_INLINE void mf_row4(const int16_t *x, const int16_t *w, int32_t run, int32_t *n)
{
    int32_t n0 = n[0], n1 = n[1], n2 = n[2], n3 = n[3];
#if MF_ASM_LOOPS
    /* 16 instructions per 16 MACs: two pairs per turn, the weights (word-aligned) by LDRD */
    if (run & 2) {  /* an odd number of pairs: the first one alone */
        const uint32_t xv = mf_load32(x);
        n0 = mf_smlad(xv, mf_load32(w), n0);
        n1 = mf_smlad(xv, mf_load32(w + 2), n1);
        n2 = mf_smlad(xv, mf_load32(w + 4), n2);
        n3 = mf_smlad(xv, mf_load32(w + 6), n3);
        x += 2, w += 8;
    }
    const int16_t *end = x + 4 * (run >> 2);
    if (x != end) {
        uint32_t xv, yv, wa, wb;
        __asm__ volatile(
            "1:\n\t"
            "ldr %[xv], [%[x]], #4\n\t"
            "ldrd %[wa], %[wb], [%[w]], #8\n\t"
            "ldr %[yv], [%[x]], #4\n\t"
            "smlad %[n0], %[xv], %[wa], %[n0]\n\t"
            "smlad %[n1], %[xv], %[wb], %[n1]\n\t"
            "ldrd %[wa], %[wb], [%[w]], #8\n\t"
            "smlad %[n2], %[xv], %[wa], %[n2]\n\t"
            "smlad %[n3], %[xv], %[wb], %[n3]\n\t"
            "ldrd %[wa], %[wb], [%[w]], #8\n\t"
            "smlad %[n0], %[yv], %[wa], %[n0]\n\t"
            "smlad %[n1], %[yv], %[wb], %[n1]\n\t"
            "ldrd %[wa], %[wb], [%[w]], #8\n\t"
            "smlad %[n2], %[yv], %[wa], %[n2]\n\t"
            "smlad %[n3], %[yv], %[wb], %[n3]\n\t"
            "cmp %[x], %[end]\n\t"
            "bne 1b\n\t"
            : [x] "+r"(x), [w] "+r"(w), [n0] "+r"(n0), [n1] "+r"(n1), [n2] "+r"(n2), [n3] "+r"(n3),
              [xv] "=&r"(xv), [yv] "=&r"(yv), [wa] "=&r"(wa), [wb] "=&r"(wb)
            : [end] "r"(end)
            : "cc", "memory");
    }
#else
    for (int32_t i = run >> 1; i > 0; --i, x += 2, w += 8) {
        const uint32_t xv = mf_load32(x);
        n0 = mf_smlad(xv, mf_load32(w), n0);
        n1 = mf_smlad(xv, mf_load32(w + 2), n1);
        n2 = mf_smlad(xv, mf_load32(w + 4), n2);
        n3 = mf_smlad(xv, mf_load32(w + 6), n3);
    }
#endif
    if (run & 1) {  /* the row's last value, times its four weights */
        const int32_t xs = x[0];
        n0 += xs * w[0], n1 += xs * w[1], n2 += xs * w[2], n3 += xs * w[3];
    }
    n[0] = n0, n[1] = n1, n[2] = n2, n[3] = n3;
}

/* Weight of channel c (0..3) at index r of a window row in the blocked layout (border pixels). */
MF_INLINE int32_t mf_wrow(const int16_t *w, int32_t r, int32_t run, int32_t c)
{
    return (run & 1) && r == run - 1 ? w[4 * r + c] : w[4 * (r & ~1) + 2 * c + (r & 1)];
}

/* The sums of one output pixel for one block of four channels, in int64. */
MF_INLINE void mf_block4(const mf_conv2d_s16_dsp_params *p, const int16_t *in, int32_t y0, int32_t x0,
                         const int16_t *wb, int64_t *a)
{
    const int32_t run = p->k_w * p->in_c;
    const int32_t full = x0 >= 0 && x0 + p->k_w <= p->in_w;
    int32_t n[4] = {0, 0, 0, 0};
    a[0] = a[1] = a[2] = a[3] = 0;
    for (int32_t ky = 0; ky < p->k_h; ++ky) {
        const int32_t iy = y0 + ky * p->dilation_h;
        if (iy < 0 || iy >= p->in_h) {
            continue;
        }
        const int16_t *x = in + (size_t)iy * p->in_w * p->in_c;
        const int16_t *w = wb + (size_t)ky * 4 * run;
        if (full) {
            mf_row4(x + (size_t)x0 * p->in_c, w, run, n);
        } else {  /* a border pixel: the taps inside the image, one by one */
            for (int32_t kx = MF_MAX(0, -x0); kx < p->k_w && x0 + kx < p->in_w; ++kx) {
                const int16_t *xp = x + (size_t)(x0 + kx) * p->in_c;
                for (int32_t i = 0; i < p->in_c; ++i) {
                    for (int32_t c = 0; c < 4; ++c) {
                        n[c] += xp[i] * mf_wrow(w, kx * p->in_c + i, run, c);
                    }
                }
            }
        }
        if (!p->narrow) {  /* one row's sums fit int32 (lowering checked): move them to int64 */
            for (int32_t c = 0; c < 4; ++c) {
                a[c] += n[c];
                n[c] = 0;
            }
        }
    }
    for (int32_t c = 0; c < 4; ++c) {
        a[c] += n[c];
    }
}

void mf_conv2d_s16_dsp(const mf_conv2d_s16_dsp_params *p, const int16_t *input, int16_t *output)
{
    const int32_t step = p->out_stride ? p->out_stride : p->out_c;
    const int32_t block = 4 * p->k_h * p->k_w * p->in_c;  /* int16 weights per block of 4 channels */
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *in = input + (size_t)b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += step) {
                const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                const int16_t *wb = p->weights;
                for (int32_t oc = 0; oc < p->out_c; oc += 4, wb += block) {
                    int64_t a[4];
                    mf_block4(p, in, y0, x0, wb, a);
                    for (int32_t c = 0; c < 4 && oc + c < p->out_c; ++c) {
                        output[oc + c] = mf_out_s16(a[c] + p->bias[oc + c], p->wide, p->mult[oc + c],
                                                    p->shift[oc + c], p->act_min, p->act_max);
                    }
                }
            }
        }
    }
}
