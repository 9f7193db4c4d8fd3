/* CONV_2D int8, blocked (any kernel size, stride, dilation, padding; int8 weights in flash).
 *
 * Per output pixel (NHWC raster order, or last to first when p->reverse), per block of four
 * output channels: four accumulators start at their biases and take the dot product of the
 * pixel's window with the four channels' weights (mf_dot4: per 8 window values one load pair of
 * inputs and one of weights per channel, SXTB16 on both, 4 SMLAD per channel). The window is
 * read from the input where it lies:
 *   - in_c % 8 == 0, horizontal dilation 1 and the window inside the image horizontally: each
 *     window row is one contiguous run of k_w * in_c values (a pointwise conv: one run);
 *   - otherwise tap by tap (in_c values each), taps outside the image from p->zrow, in_c bytes
 *     of the input zero point (which the bias fold cancels, as TFLite's skipped taps);
 *   - in_c % 4 != 0 (a first layer on 1 or 3 channels): the window is gathered into a stack
 *     buffer (zero point outside the image, zeros up to p->depth, whose weights are zero).
 * Then the four requantized values go through the epilogue and are stored.
 *
 * Access order (the planner's unstaged pixel units): a block reads only its pixel's window and,
 * after it, writes its own four channels; pixels never interleave. A residual operand is read
 * four elements at a time before they are stored, in increasing order (decreasing when
 * reversed: blocks then run last to first). No arena scratch. */
#ifndef MF_CONV2D_S8_GEMM_BODY_H
#define MF_CONV2D_S8_GEMM_BODY_H

#include <stdint.h>

#include "mf_fast.h"

/* The window of the pixel whose top-left tap is (y0, x0) -> buf[0 .. p->depth), in_c % 4 != 0. */
static void mf_gemm_gather(const mf_conv2d_s8_gemm_params *p, const int8_t *image, int32_t y0,
                           int32_t x0, int8_t *buf)
{
    const int32_t c = p->in_c;
    const int8_t zp = (int8_t)p->in_zero_point;
    int8_t *g = buf;
    int32_t ky, kx, i;
    for (ky = 0; ky < p->k_h; ky++) {
        const int32_t iy = y0 + ky * p->dilation_h;
        for (kx = 0; kx < p->k_w; kx++) {
            const int32_t ix = x0 + kx * p->dilation_w;
            if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w) {
                for (i = 0; i < c; i++) {
                    *g++ = zp;
                }
            } else {
                const int8_t *src = image + (iy * p->in_w + ix) * c;
                for (i = 0; i < c; i++) {
                    *g++ = src[i];
                }
            }
        }
    }
    while (g < buf + p->depth) {
        *g++ = 0;
    }
}

MF_BODY void mf_conv2d_s8_gemm_body(const mf_conv2d_s8_gemm_params *p, const mf_epilogue_s8 *e,
                                    const mf_fast_addsub *aq, int kind, const int8_t *input,
                                    const int8_t *res, int8_t *output)
{
    const int32_t in_c = p->in_c, out_c = p->out_c;
    const int32_t hw = p->out_h * p->out_w, total = p->batches * hw;
    const int32_t blocks = (out_c + 3) / 4;
    const int gather = in_c % 4 != 0;
    const int runs = in_c % 8 == 0 && p->dilation_w == 1;
    const int32_t tap8 = in_c / 8, tap4 = (in_c % 8) / 4;
    const int aligned = ((uintptr_t)input & 3u) == 0;
    const int32_t lo = p->act_min, hi = p->act_max;
    uint32_t gbuf[MF_GATHER_MAX / 4];
    int32_t t;

    for (t = 0; t < total; t++) {
        const int32_t pix = p->reverse ? total - 1 - t : t;
        const int32_t n = pix / hw, r = pix - n * hw, oy = r / p->out_w, ox = r - oy * p->out_w;
        const int8_t *image = input + n * p->in_h * p->in_w * in_c;
        const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
        const int row_run = runs && x0 >= 0 && x0 + (p->k_w - 1) < p->in_w;
        int32_t bi;

        if (gather) {
            mf_gemm_gather(p, image, y0, x0, (int8_t *)gbuf);
        }
        for (bi = 0; bi < blocks; bi++) {
            const int32_t b = p->reverse ? blocks - 1 - bi : bi;
            const uint32_t *w = (const uint32_t *)(const void *)p->weights + b * p->depth;
            const mf_fast_q *q = mf_fast_quant(p->quant) + 4 * b;
            const int32_t first = pix * out_c + 4 * b;
            int32_t acc[4];
            mf_fast_bias4(q, acc);
            if (gather) {
                mf_dot4((const int8_t *)gbuf, &w, p->depth / 8, 0, 1, acc);
            } else {
                int32_t ky, kx;
                for (ky = 0; ky < p->k_h; ky++) {
                    const int32_t iy = y0 + ky * p->dilation_h;
                    const int inside_y = iy >= 0 && iy < p->in_h;
                    if (inside_y && row_run) {
                        mf_dot4(image + (iy * p->in_w + x0) * in_c, &w, tap8 * p->k_w, 0, aligned, acc);
                        continue;
                    }
                    for (kx = 0; kx < p->k_w; kx++) {
                        const int32_t ix = x0 + kx * p->dilation_w;
                        const int8_t *src = inside_y && ix >= 0 && ix < p->in_w
                                                ? image + (iy * p->in_w + ix) * in_c
                                                : (const int8_t *)(const void *)p->zrow;
                        mf_dot4(src, &w, tap8, tap4, aligned, acc);
                    }
                }
            }
            mf_fast_store4(acc[0], acc[1], acc[2], acc[3], q, lo, hi, e, aq, kind, res,
                           output + first, first, MF_MIN(out_c - 4 * b, 4));
        }
    }
}

#endif /* MF_CONV2D_S8_GEMM_BODY_H */
