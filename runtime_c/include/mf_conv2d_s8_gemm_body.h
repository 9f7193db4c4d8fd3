/* CONV_2D int8, blocked (any kernel size, stride, dilation, padding; int8 weights in flash).
 *
 * Per output pixel (NHWC raster order, or last to first when p->reverse) the kernel lists the
 * runs of the pixel's window in the input ("segments"), then mf_fast_blocks computes its output
 * channels four at a time: four accumulators start at their biases and take the dot product of
 * the segments with the four channels' weights (per 8 window values one load pair of inputs and
 * one of weights per channel, SXTB16 on both, 4 SMLAD per channel), then are requantized. The
 * segments:
 *   - in_c % 8 == 0 and horizontal dilation 1: per window row at most three runs, the taps left
 *     of the image, those inside (k_w * in_c contiguous values for a pixel inside the image; a
 *     pointwise conv has one segment), those right of it; the outside runs, and rows outside the
 *     image, read p->zrow (k_w * in_c bytes of the input zero point, which the bias fold cancels,
 *     as TFLite's skipped taps). Pixels inside the image share one list of offsets per call.
 *   - otherwise one per tap, in_c values (4-value chunk first when in_c % 8 == 4);
 *   - in_c % 4 != 0 (a first layer on 1 or 3 channels): the window gathered into a stack buffer
 *     (zero point outside the image, zeros up to p->depth, whose weights are zero).
 * Without an epilogue (and a clamp, and with out_c % 4 == 0) the blocks store straight into the
 * output; otherwise through mf_fast_staged (mf_finish.h).
 *
 * Access order (the planner's unstaged pixel units): a block or a stage reads only its pixel's
 * window, then writes its own channels; pixels never interleave; a residual operand is read
 * element by element right before the element is stored, in increasing order (decreasing when
 * reversed). No arena scratch. */
#ifndef MF_CONV2D_S8_GEMM_BODY_H
#define MF_CONV2D_S8_GEMM_BODY_H

#include "mf_fast.h"
#include "mf_finish.h"
#include "mf_gather_mve.h"

#define MF_GATHER_MAX 160   /* bytes of a gathered window (stack) */
#define MF_GEMM_SEGMENTS 16 /* segments of a window (3 k_h with runs, else k_h * k_w) */
#define MF_GEMM_ROWS 16     /* k_h bound */

/* n bytes from src (or of value zp4's, when src is NULL) to dst: words, then up to 3 bytes.
 * (One function for both: gcc turns separate copy and fill loops into library calls.) */
MF_INLINE int8_t *mf_gemm_copy(int8_t *dst, const int8_t *src, int32_t n, uint32_t zp4)
{
    for (; n >= 4; n -= 4, dst += 4) {
        const uint32_t v = src != NULL ? mf_load32(src) : zp4;
        memcpy(dst, &v, 4);
        src = src != NULL ? src + 4 : NULL;
    }
    if (n > 0) {
        dst[0] = src != NULL ? src[0] : (int8_t)zp4;
    }
    if (n > 1) {
        dst[1] = src != NULL ? src[1] : (int8_t)zp4;
    }
    if (n > 2) {
        dst[2] = src != NULL ? src[2] : (int8_t)zp4;
    }
    return dst + n;
}

/* The window at input rows `rows` (NULL outside the image), first column x0 -> buf[0 ..
 * k_h * k_w * in_c), in_c % 4 != 0: rows inside the image horizontally are one run of k_w * in_c
 * values. (The zeros after it, up to p->depth, are written once per call.) */
static void mf_gemm_gather(const mf_conv2d_s8_gemm_params *p, const int8_t *const *rows, int32_t x0,
                           int8_t *buf)
{
    const int32_t c = p->in_c, run = p->k_w * c;
    const uint32_t zp4 = ((uint32_t)p->in_zero_point & 0xFFu) * 0x01010101u;
    const int runs = p->dilation_w == 1 && x0 >= 0 && x0 + p->k_w <= p->in_w;
    int8_t *g = buf;
    int32_t ky, kx;
#if MF_MVE
    if (mf_gather_mve(p->k_h, p->k_w, c, p->in_w, p->dilation_w, p->in_zero_point, rows, x0, buf)) {
        return;
    }
#endif
    for (ky = 0; ky < p->k_h; ky++) {
        const int8_t *row = rows[ky];
        if (row == NULL || runs) {
            g = mf_gemm_copy(g, row != NULL ? row + x0 * c : NULL, run, zp4);
            continue;
        }
        for (kx = 0; kx < p->k_w; kx++) {
            const int32_t ix = x0 + kx * p->dilation_w;
            g = mf_gemm_copy(g, ix >= 0 && ix < p->in_w ? row + ix * c : NULL, c, zp4);
        }
    }
}

/* The window of a pixel as segments. With in_c % 8 == 0 and horizontal dilation 1, each window
 * row is at most three runs: taps left of the image, taps inside, taps right of it (a row
 * outside the image is one run), the outside runs reading p->zrow (k_w * in_c bytes of the
 * input zero point, which the bias fold cancels, as TFLite's skipped taps); otherwise one
 * segment per tap of in_c values. `rows` holds the window's input rows (NULL outside the
 * image); x0 is its first column. With rel, the pixel lies inside the image and the starts
 * are offsets from its first tap (the same for every such pixel); otherwise addresses. */
MF_HELPER int32_t mf_gemm_segments(const mf_conv2d_s8_gemm_params *p, const int8_t *const *rows,
                                int32_t x0, int rel, mf_seg *seg)
{
    const int32_t c = p->in_c, k_w = p->k_w, c8 = c / 8, tap_n = MF_SEG_N(c / 8, c % 8 / 4);
    const intptr_t zrow = (intptr_t)p->zrow;
    const int runs = c % 8 == 0 && p->dilation_w == 1;
    const int32_t row_step = p->dilation_h * p->in_w * c;
    int32_t ky, kx, count = 0;
    for (ky = 0; ky < p->k_h; ky++) {
        const int8_t *row = rel ? NULL : rows[ky];
        if (runs) {
            const int32_t left = rel ? 0 : MF_CLAMP(-x0, 0, k_w);
            const int32_t right = rel ? 0 : MF_CLAMP(x0 + k_w - p->in_w, 0, k_w - left);
            const int32_t mid = k_w - left - right;
            if (!rel && row == NULL) {
                seg[count].start = zrow;
                seg[count++].n = MF_SEG_N(k_w * c8, 0);
                continue;
            }
            if (left) {
                seg[count].start = zrow;
                seg[count++].n = MF_SEG_N(left * c8, 0);
            }
            if (mid) {
                seg[count].start = rel ? ky * row_step : (intptr_t)(row + (x0 + left) * c);
                seg[count++].n = MF_SEG_N(mid * c8, 0);
            }
            if (right) {
                seg[count].start = zrow;
                seg[count++].n = MF_SEG_N(right * c8, 0);
            }
            continue;
        }
        for (kx = 0; kx < k_w; kx++) {
            const int32_t ix = x0 + kx * p->dilation_w;
            if (rel) {
                seg[count].start = ky * row_step + kx * p->dilation_w * c;
            } else {
                seg[count].start = row != NULL && ix >= 0 && ix < p->in_w ? (intptr_t)(row + ix * c) : zrow;
            }
            seg[count++].n = tap_n;
        }
    }
    return count;
}

MF_INLINE void mf_conv2d_s8_gemm_loop(const mf_conv2d_s8_gemm_params *p, const mf_epilogue_s8 *e,
                                      const mf_fast_addsub *aq, int kind, const int8_t *input,
                                      const int8_t *res, int8_t *output, int strided)
{
    const int32_t in_c = p->in_c, out_c = p->out_c, depth = p->depth;
    const int32_t k_h = p->k_h, out_h = p->out_h, out_w = p->out_w;
    /* strided (a compile-time constant): the output is a channel slice of a wider tensor, pixels
     * (rows) p->out_stride elements apart; the residual stays dense */
    const int32_t out_stride = strided && p->out_stride ? p->out_stride : out_c;
    const int32_t row_bytes = p->in_w * in_c;
    const int32_t blocks = (out_c + 3) / 4;
    const int gather = in_c % 4 != 0;
    const int32_t clamp = p->clamp, reverse = p->reverse;
    const int32_t span_w = (p->k_w - 1) * p->dilation_w;
    /* mf_fast_blocks stores straight into the output, or, a stage at a time, into `stage` for
     * the finishing pass (clamp, epilogue, the last channels when out_c % 4 != 0) */
    const int direct = kind == MF_EP_NONE && !clamp && out_c % 4 == 0;
    const uint32_t *weights = (const uint32_t *)(const void *)p->weights;
    uint32_t stage[MF_STAGE_MAX / 4];
    union {
        mf_seg inner[MF_GEMM_SEGMENTS]; /* the segments of a pixel inside the image, relative */
        uint32_t gathered[MF_GATHER_MAX / 4]; /* in_c % 4 != 0: the window */
    } u;
    mf_seg seg[MF_GEMM_SEGMENTS];
    const int8_t *rows[MF_GEMM_ROWS];
    int32_t n_inner = 0, nn, yy, xx, ky;

    if (gather) {
        const int32_t window = k_h * p->k_w * in_c;
        mf_gemm_copy((int8_t *)u.gathered + window, NULL, depth - window, 0);
    } else {
        n_inner = mf_gemm_segments(p, NULL, 0, 1, u.inner);
    }
    for (nn = 0; nn < p->batches; nn++) {
        const int32_t n = reverse ? p->batches - 1 - nn : nn;
        const int8_t *image = input + n * p->in_h * row_bytes;
        for (yy = 0; yy < out_h; yy++) {
            const int32_t oy = reverse ? out_h - 1 - yy : yy;
            const int32_t y0 = oy * p->stride_h - p->pad_h;
            const int rows_in = y0 >= 0 && y0 + (k_h - 1) * p->dilation_h < p->in_h;
            for (ky = 0; ky < k_h; ky++) { /* the window's input rows, NULL outside the image */
                const int32_t iy = y0 + ky * p->dilation_h;
                rows[ky] = iy >= 0 && iy < p->in_h ? image + iy * row_bytes : NULL;
            }
            for (xx = 0; xx < out_w; xx++) {
                const int32_t ox = reverse ? out_w - 1 - xx : xx;
                const int32_t x0 = ox * p->stride_w - p->pad_w;
                const int32_t pix = (n * out_h + oy) * out_w + ox;
                int8_t *out = output + pix * out_stride;
                const mf_seg *segs = seg;
                const int8_t *base = NULL;
                int32_t nseg;

                if (gather) {
                    mf_gemm_gather(p, rows, x0, (int8_t *)u.gathered);
                    seg[0].start = (intptr_t)u.gathered;
                    seg[0].n = MF_SEG_N(depth / 8, 0);
                    nseg = 1;
                } else if (rows_in && x0 >= 0 && x0 + span_w < p->in_w) {
                    segs = u.inner;
                    nseg = n_inner;
                    base = rows[0] + x0 * in_c;
                } else {
                    nseg = mf_gemm_segments(p, rows, x0, 0, seg);
                }
                if (direct) {
                    mf_fast_blocks(segs, nseg, base, weights, p->quant, blocks, p->lshift, out);
                } else {
                    mf_fast_staged(segs, nseg, base, weights, depth, p->quant, blocks, p->lshift,
                                   (int8_t *)stage, out_c, clamp, p->act_min, p->act_max, e, aq, kind,
                                   res, out, pix * out_c, reverse);
                }
            }
        }
    }
}

/* The dense kernel's loop, and the strided one's (separate entry points, so that the dense code
 * stays exactly as it was: the stride is folded away at compile time). */
MF_INLINE void mf_conv2d_s8_gemm_body(const mf_conv2d_s8_gemm_params *p, const mf_epilogue_s8 *e,
    const mf_fast_addsub *aq, int kind, const int8_t *input, const int8_t *res, int8_t *output)
{
    mf_conv2d_s8_gemm_loop(p, e, aq, kind, input, res, output, 0);
}

MF_INLINE void mf_conv2d_s8_gemm_strided_body(const mf_conv2d_s8_gemm_params *p, const mf_epilogue_s8 *e,
    const mf_fast_addsub *aq, int kind, const int8_t *input, const int8_t *res, int8_t *output)
{
    mf_conv2d_s8_gemm_loop(p, e, aq, kind, input, res, output, 1);
}

#endif /* MF_CONV2D_S8_GEMM_BODY_H */
