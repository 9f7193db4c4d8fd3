/* DEPTHWISE_CONV_2D int8, depth multiplier 1, channels a multiple of 4 (up to MF_DW_TAPS_MAX taps,
 * any stride, dilation, padding; weights in flash; no scratch).
 *
 * Per output pixel (NHWC raster order, or last to first when p->reverse) mf_dw_pixels computes its
 * channels four at a time: a tap is one word of four input channels, split by SXTB16 into (c0, c2)
 * and (c1, c3), and two words of their weights as int16 lanes (MF_W16: lower/fast.py
 * dw_block_words, the left shift folded into them and into the biases that open each group's
 * block), four MACs (SMLABB / SMLATT): 10 instructions per tap (a 3x3 window unrolled), then the
 * four values are requantized. Where
 * the taps are: for a pixel inside the image, offsets from its first tap (one list per call);
 * for a border pixel, addresses, p->zrow for taps outside the image (channels of the input zero
 * point, which the bias fold cancels, as TFLite's skipped taps). Without an epilogue (and a
 * clamp) the groups store straight into the output, a row's interior pixels in one call (a run),
 * and a 3x3 window's pixels two at a time (mf_dw_pairs.h: a run's by offsets, other neighbours by
 * addresses), or with stride 1 four at a time where no store can reach an unread word
 * (mf_dw_quads.h: a run's by offsets, a border pixel and the three after it, or a row's last
 * four, by addresses);
 * otherwise a stage of up to MF_STAGE_MAX channels at a time is finished by mf_fast_finish
 * (mf_finish.h).
 *
 * Access order (the planner's unstaged pixel units): a group or a stage reads only its pixel's
 * window, then writes its own channels; pixels never interleave their stores with a later
 * pixel's reads that those stores could reach (a pair's second pixel stores only once both
 * windows are read, mf_dw_pairs.h, unless no store can reach an unread word); a residual operand is read
 * element by element right before the element is stored, in increasing order (decreasing when
 * reversed: the stages of a pixel then run last to first too). */
#ifndef MF_DWCONV2D_S8_DSP_BODY_H
#define MF_DWCONV2D_S8_DSP_BODY_H

#include "mf_fast.h"
#include "mf_finish.h"
#include "mf_dwconv2d_s8_mve.h"
#include "mf_dwconv2d_s8_mve8.h"

#define MF_DW_TAPS_MAX 32 /* k_h * k_w bound: the tap lists live on the stack */
#define MF_DW_ROWS_MAX 16 /* k_h bound */
/* Pairs by addresses (mf_dw_pairs) from this many channel groups on: fewer do not repay the
 * second tap list (measured on VWW's 8-channel layer, 2 groups) */
#define MF_DW_LINK_GROUPS 4
/* lshift flag: the weights are lower/fast.py dw_block_words' (per group its biases, then per tap
 * int16 lanes (w0, w2), (w1, w3), all shifted left by lshift: the kernels skip the shift); else
 * dw_words' int8 words (Helium, which never gets the flag) */
#define MF_W16 128
/* 1 in builds with a 3x3 stride-1 depthwise call whose rows hold four interior pixels or more
 * (lower/fast.py dw_sizes, mf_config.h): runs of them go four at a time (mf_dw_quads.h); the
 * other builds do not link that code. */
#ifndef MF_DW_QUADS
#define MF_DW_QUADS 0
#endif
/* 1 in builds with a quads call whose rows, padded by one column, start with two quads or more or
 * with one quad and a run, or with a stride-2 call padded on the right only over an even width
 * (lower/fast.py dw_sizes): a row whose windows lie inside the image vertically goes from its left
 * border as one run (mf_dw_quads' zl and zr), or to its right one (mf_dw_pairs' zr) */
#ifndef MF_DW_EDGES
#define MF_DW_EDGES 0
#endif
/* mf_dw_pairs' group loops in this build (lower/fast.py dw_sizes), by the pair's kind: the second
 * pixel the first's right neighbour in a 3x3 window (MF_DW_ADJ: a row's columns shared) or two
 * columns to its right (MF_DW_STEP2: stride 2, one column shared), never in a backward plan; any
 * other pair (MF_DW_SPREAD). A build that leaves a loop out pairs no pixels of its kind: they go
 * one at a time. Without dw_sizes, the last one only. */
/* 1: mf_dw_pairs and mf_dw_quads requantize with the sign step (SMMLAR's addend less 1 for a
 * negative accumulator, mf_fast.h's rounding of TFLite's); 0 in builds whose calls through them
 * all have an addend that a negative accumulator cannot lift above -128 (lower/fast.py
 * dw_sizes: the output zero point -128, a ReLU's): SMMLAR adds at most 0 to the addend there, the
 * shift leaves at most the zero point, so the value saturates to -128 with the step or without,
 * as TFLite's does (its scaling of a negative accumulator is at most 0). */
#ifndef MF_DW_SIGN
#define MF_DW_SIGN 1
#endif
/* mf_dw_pixels follows MF_DW_SIGN too: lower/fast.py dw_sizes sets it from every plain call's
 * table (a clamped one's too: the value saturates before the clamp), and a build with a fused
 * variant's call keeps the step (dw_ep_sizes: one weak copy of mf_dw_pixels serves every file) */
#define MF_DW_KIND_ANY 0
#define MF_DW_KIND_ADJ 1
#define MF_DW_KIND_STEP2 2
#ifndef MF_DW_SPREAD
#define MF_DW_SPREAD 1
#endif
#ifndef MF_DW_ADJ
#define MF_DW_ADJ 0
#endif
#ifndef MF_DW_STEP2
#define MF_DW_STEP2 0
#endif

/* acc += the taps of one channel group (the portable path of mf_dw_pixels): address tap[t] + g4
 * holds the four input channels of tap t, *wp the four weights of each tap in turn. */
MF_INLINE void mf_dw_taps(const intptr_t *tap, int32_t taps, uintptr_t g4, const uint32_t **wp,
                          mf_acc4 *acc)
{
    int32_t a0 = acc->a0, a1 = acc->a1, a2 = acc->a2, a3 = acc->a3;
    const uint32_t *w = *wp;
    int32_t t;
    for (t = 0; t < taps; t++) {
        const uint32_t x = mf_load32((const int8_t *)((uintptr_t)tap[t] + g4)), wl = *w++;
        const uint32_t xe = mf_sxtb16(x), xo = mf_sxtb16_ror8(x);
        const uint32_t we = mf_sxtb16(wl), wo = mf_sxtb16_ror8(wl);
        a0 = mf_smlabb(xe, we, a0);
        a2 = mf_smlatt(xe, we, a2);
        a1 = mf_smlabb(xo, wo, a1);
        a3 = mf_smlatt(xo, wo, a3);
    }
    acc->a0 = a0;
    acc->a1 = a1;
    acc->a2 = a2;
    acc->a3 = a3;
    *wp = w;
}

/* The same over dw_block_words' layout: *wp at a group's first tap, two words a tap. */
MF_INLINE void mf_dw_taps16(const intptr_t *tap, int32_t taps, uintptr_t g4, const uint32_t **wp,
                            mf_acc4 *acc)
{
    int32_t a0 = acc->a0, a1 = acc->a1, a2 = acc->a2, a3 = acc->a3;
    const uint32_t *w = *wp;
    int32_t t;
    for (t = 0; t < taps; t++, w += 2) {
        const uint32_t x = mf_load32((const int8_t *)((uintptr_t)tap[t] + g4));
        const uint32_t xe = mf_sxtb16(x), xo = mf_sxtb16_ror8(x);
        a0 = mf_smlabb(xe, w[0], a0);
        a2 = mf_smlatt(xe, w[0], a2);
        a1 = mf_smlabb(xo, w[1], a1);
        a3 = mf_smlatt(xo, w[1], a3);
    }
    acc->a0 = a0;
    acc->a1 = a1;
    acc->a2 = a2;
    acc->a3 = a3;
    *wp = w;
}

/* `groups` channel groups of `count` output pixels, from group g0 on (weights w, table blocks qb
 * of group g0 and on), requantized and saturated to int8: pixel i's window starts at base + i step
 * (tap t of group g at base + i step + tap[t] + 4 g) and its groups go to dst + i dst_step
 * [0 .. 4 groups). Per group its taps (mf_dw_taps), then its table block. A border pixel comes
 * alone (count 1, base NULL, its taps absolute addresses); a run of interior pixels of one output
 * row shares the tap offsets, so the assembly loop walks it without returning to C. */
MF_HELPER void mf_dw_pixels(const intptr_t *tap, int32_t taps, const int8_t *base, int32_t g0,
                            const uint32_t *w, const int32_t *qb, int32_t groups, int32_t lshift,
                            int8_t *dst, int32_t count, int32_t step, int32_t dst_step)
{
#if MF_MVE || !MF_ASM_LOOPS /* (the DSP assembly builds, M4 / M7, never get the layout) */
    if (lshift & MF_L16) { /* the Helium layout (lower/mve.py), pixel by pixel */
        int32_t i;
        for (i = 0; i < count; i++) {
            mf_dw_pixel8(tap, taps, (const int8_t *)((uintptr_t)base + (uintptr_t)(i * step)), g0, w, qb,
                         groups, lshift & (MF_L16 - 1), dst + i * dst_step);
        }
        return;
    }
#endif
#if MF_MVE
    int32_t i;
    for (i = 0; i < count; i++) {
        const int8_t *at = (const int8_t *)((uintptr_t)base + (uintptr_t)(i * step));
        if (lshift & MF_W16) { /* (params lowered without the Helium retargeting) */
            mf_dw_pixel_mve16(tap, taps, at, g0, w, qb, groups, dst + i * dst_step);
        } else {
            mf_dw_pixel_mve(tap, taps, at, g0, w, qb, groups, lshift, dst + i * dst_step);
        }
    }
#elif MF_ASM_LOOPS
    /* Loop state in a frame below the stack pointer: [0] tap [4] taps [8] w [12] the pixel's dst
     * less its first group offset [16] the pixel's last group end [20] lshift [24] pixels left
     * [28] step [32] dst_step - step [36] qb [40] the pixel's first group offset [44] 4 groups.
     * The table block and the group's offset stay in registers. A 3x3 window runs its taps
     * unrolled, falling through into the requantization; other windows loop out of line (22:).
     * The four bytes store as one word. */
    int32_t a0, a1 = count, a2 = step, a3 = dst_step;
    const intptr_t *tp = tap;
    int32_t n = taps, g4 = (int32_t)((uintptr_t)base + 4u * (uint32_t)g0), x = 4 * groups, xo = lshift;
    uint32_t s = (uint32_t)(uintptr_t)qb, wl, wo;
    const int8_t *r = (const int8_t *)dst;
#define MF_DWP_TAP                               \
    "ldr %[r], [%[tp]], #4\n\t"                  \
    "ldr %[x], [%[r], %[g4]]\n\t"                \
    "ldr %[wl], [%[w]], #4\n\t"                  \
    "ldr %[wo], [%[w]], #4\n\t"                  \
    "sxtb16 %[xo], %[x], ror #8\n\t"             \
    "sxtb16 %[x], %[x]\n\t"                      \
    "smlabb %[a0], %[x], %[wl], %[a0]\n\t"       \
    "smlatt %[a2], %[x], %[wl], %[a2]\n\t"       \
    "smlabb %[a1], %[xo], %[wo], %[a1]\n\t"      \
    "smlatt %[a3], %[xo], %[wo], %[a3]\n\t"
    /* (without MF_DW_SIGN no sign step: a negative accumulator saturates to -128 either way, as in
     * mf_dw_pairs and mf_dw_quads) */
#if MF_DW_SIGN
#define MF_DWP_SIGN(a, b)                                      \
    "add %[wl], %[wl], %[" #a "], asr #31\n\t"                 \
    "add %[wo], %[wo], %[" #b "], asr #31\n\t"
#else
#define MF_DWP_SIGN(a, b) ""
#endif
#define MF_DWP_RQ2(a, b, off)                                  \
    "ldr %[x], [%[s], #" #off "]\n\t"                          \
    "ldr %[xo], [%[s], #(" #off " + 4)]\n\t"                   \
    "ldr %[wl], [%[s], #(" #off " + 16)]\n\t"                  \
    "ldr %[wo], [%[s], #(" #off " + 20)]\n\t"                  \
    "smmlar %[wl], %[" #a "], %[x], %[wl]\n\t"                 \
    "smmlar %[wo], %[" #b "], %[xo], %[wo]\n\t"                \
    MF_DWP_SIGN(a, b)                                          \
    "ldrd %[x], %[xo], [%[s], #(" #off " + 32)]\n\t"           \
    "asr %[wl], %[wl], %[x]\n\t"                               \
    "asr %[wo], %[wo], %[xo]\n\t"                              \
    "ssat %[" #a "], #8, %[wl]\n\t"                            \
    "ssat %[" #b "], #8, %[wo]\n\t"
    __asm__ volatile(
        "sub sp, sp, #48\n\t"
        "str %[tp], [sp, #0]\n\t"
        "str %[n], [sp, #4]\n\t"
        "str %[w], [sp, #8]\n\t"
        "sub %[r], %[r], %[g4]\n\t"
        "str %[r], [sp, #12]\n\t"
        "str %[xo], [sp, #20]\n\t"
        "str %[a1], [sp, #24]\n\t"
        "str %[a2], [sp, #28]\n\t"
        "sub %[a3], %[a3], %[a2]\n\t"
        "str %[a3], [sp, #32]\n\t"
        "str %[s], [sp, #36]\n\t"
        "str %[x], [sp, #44]\n\t"
        "10:\n\t" /* pixel: g4 its first group's offset, s the first table block, w the weights */
        "str %[g4], [sp, #40]\n\t"
        "ldr %[x], [sp, #44]\n\t"
        "add %[x], %[x], %[g4]\n\t"
        "str %[x], [sp, #16]\n\t"
        "20:\n\t" /* group: s is its table block, g4 its channels' offset */
        "ldr %[tp], [sp, #0]\n\t"
        "ldr %[n], [sp, #4]\n\t"
        "ldr %[a0], [%[w]], #4\n\t" /* the biases (shifted) before the taps: single loads */
        "ldr %[a1], [%[w]], #4\n\t" /* back to back, the first tap's too, 1 cycle each */
        "ldr %[a2], [%[w]], #4\n\t"
        "ldr %[a3], [%[w]], #4\n\t"
        "cmp %[n], #9\n\t"
        "bne 22f\n\t"
        MF_DWP_TAP MF_DWP_TAP MF_DWP_TAP MF_DWP_TAP MF_DWP_TAP MF_DWP_TAP MF_DWP_TAP MF_DWP_TAP
        MF_DWP_TAP
        "23:\n\t"
        MF_DWP_RQ2(a0, a1, 16) MF_DWP_RQ2(a2, a3, 24)
        "bfi %[a0], %[a1], #8, #8\n\t" /* the four bytes into a0 (its sign copies overwritten) */
        "bfi %[a0], %[a2], #16, #8\n\t"
        "bfi %[a0], %[a3], #24, #8\n\t"
        "ldr %[r], [sp, #12]\n\t"
        "str %[a0], [%[r], %[g4]]\n\t"
        "adds %[s], %[s], #64\n\t"
        "adds %[g4], %[g4], #4\n\t"
        "ldr %[x], [sp, #16]\n\t"
        "cmp %[g4], %[x]\n\t"
        "bne 20b\n\t"
        /* the pixel's end: the next one of the run, or out */
        "ldr %[a0], [sp, #24]\n\t"
        "subs %[a0], %[a0], #1\n\t"
        "beq 90f\n\t"
        "str %[a0], [sp, #24]\n\t"
        "ldrd %[a0], %[a1], [sp, #28]\n\t"
        "ldr %[g4], [sp, #40]\n\t"
        "add %[g4], %[g4], %[a0]\n\t"
        "add %[r], %[r], %[a1]\n\t"
        "str %[r], [sp, #12]\n\t"
        "ldr %[w], [sp, #8]\n\t"
        "ldr %[s], [sp, #36]\n\t"
        "b 10b\n\t"
        "22:\n\t" MF_DWP_TAP /* any other window: a loop over its taps */
        "subs %[n], %[n], #1\n\t"
        "bne 22b\n\t"
        "b 23b\n\t"
        "90:\n\t"
        "add sp, sp, #48\n\t"
        : [a0] "=&r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [w] "+r"(w), [tp] "+r"(tp),
          [n] "+r"(n), [g4] "+r"(g4), [s] "+r"(s), [x] "+r"(x), [xo] "+r"(xo), [r] "+r"(r),
          [wl] "=&r"(wl), [wo] "=&r"(wo)
        :
        : "cc", "memory");
#undef MF_DWP_TAP
#undef MF_DWP_RQ2
#undef MF_DWP_SIGN
#else
    int32_t i, g;
    for (i = 0; i < count; i++) {
        const uint32_t *wg = w;
        const int32_t *q = qb;
        int8_t *d = dst + i * dst_step;
        for (g = g0; g < g0 + groups; g++, q += MF_Q_WORDS, d += 4) {
            const uintptr_t g4 = (uintptr_t)base + (uintptr_t)(i * step) + 4u * (uint32_t)g;
            mf_acc4 acc = mf_fast_bias4(q);
            if (lshift & MF_W16) { /* the biases and the taps shifted already */
                acc.a0 = (int32_t)wg[0];
                acc.a1 = (int32_t)wg[1];
                acc.a2 = (int32_t)wg[2];
                acc.a3 = (int32_t)wg[3];
                wg += 4;
                mf_dw_taps16(tap, taps, g4, &wg, &acc);
            } else {
                mf_dw_taps(tap, taps, g4, &wg, &acc);
            }
            mf_fast_requant4(&acc, q, lshift & MF_W16 ? 0 : lshift);
            d[0] = (int8_t)acc.a0;
            d[1] = (int8_t)acc.a1;
            d[2] = (int8_t)acc.a2;
            d[3] = (int8_t)acc.a3;
        }
    }
#endif
}

#include "mf_dw_pairs.h"
#if MF_DW_QUADS && !MF_MVE
#include "mf_dw_quads.h"

/* A quad's six window columns of one row, from the row's first at (c bytes a column), unrolled:
 * an add and a store each. */
MF_INLINE void mf_dw_quad_cols(intptr_t *col, intptr_t at, int32_t c)
{
    col[0] = at;
    col[1] = at + c;
    col[2] = at + 2 * c;
    col[3] = at + 3 * c;
    col[4] = at + 4 * c;
    col[5] = at + 5 * c;
}
#endif

#if MF_DW_EDGES && !MF_MVE
/* A stride-2 call's rows from row oy (mf_dwconv2d_s8_dsp_loop's edge2: 3x3, padding 0 on the left
 * and 1 on the right over an even width, forward), dst its first pixel's output: with all three
 * window rows inside the image, this row and the next ones like it in one run of pairs each to
 * its right border (mf_dw_pairs' block), or with the first or the last one outside, this row
 * (zv: its words the zero point's row, for every pixel). Returns the rows done (0: a row with
 * its windows outside otherwise, pixel by pixel). Out of the loop, so that the loop's other
 * calls keep their registers. */
static __attribute__((noinline)) int32_t mf_dw_edge2_rows(const mf_dwconv2d_s8_dsp_params *p, const intptr_t *inner,
                                                          const int8_t *image, int8_t *dst, int32_t oy,
                                                          uint32_t *b_held, int32_t out_stride)
{
    const int32_t c = p->in_c, row_bytes = p->in_w * c, in_h = p->in_h, dh = p->dilation_h, span_h = 2 * dh;
    const int32_t y0 = oy * p->stride_h - p->pad_h;
    const int32_t zv = y0 >= 0 && y0 + span_h < in_h ? 0
                       : y0 < 0 && y0 + dh >= 0 && y0 + span_h < in_h ? 4
                       : y0 >= 0 && y0 + dh < in_h && y0 + span_h >= in_h ? 52 : -1;
    int32_t block[4];
    if (zv < 0) {
        return 0;
    }
    block[0] = zv;
    block[1] = zv ? 1 : MF_MIN(p->out_h - oy, (in_h - 1 - span_h - y0) / p->stride_h + 1);
    block[2] = p->stride_h * row_bytes;
    block[3] = p->out_w * out_stride;
    mf_dw_pairs(inner, inner, (const int8_t *)((uintptr_t)image + (uintptr_t)(y0 * row_bytes)), p->out_w / 2, 2 * c,
                (const uint32_t *)(const void *)p->weights, p->quant, c / 4, p->lshift, dst, out_stride, b_held,
                MF_DW_KIND_STEP2, (intptr_t)p->zrow, block);
    return block[1];
}
#endif

MF_INLINE void mf_dwconv2d_s8_dsp_loop(const mf_dwconv2d_s8_dsp_params *p, const mf_epilogue_s8 *e,
                                       const mf_fast_addsub *aq, int kind, const int8_t *input,
                                       const int8_t *res, int8_t *output, int strided)
{
    const int32_t c = p->in_c, groups = c / 4, taps = p->k_h * p->k_w;
    const int32_t k_h = p->k_h, k_w = p->k_w, out_h = p->out_h, out_w = p->out_w;
    const int32_t row_bytes = p->in_w * c, dil_w = p->dilation_w;
    const uint32_t in_w = (uint32_t)p->in_w;
    const int32_t span_h = (k_h - 1) * p->dilation_h, span_w = (k_w - 1) * p->dilation_w;
    const intptr_t zrow = (intptr_t)p->zrow;
    const int32_t lshift = p->lshift, clamp = p->clamp, lo = p->act_min, hi = p->act_max;
    const int32_t reverse = p->reverse;
    /* strided (a compile-time constant): the output is a channel slice of a wider tensor, pixels
     * (rows) p->out_stride elements apart; the residual stays dense */
    const int32_t out_stride = strided && p->out_stride ? p->out_stride : c;
    const int direct = kind == MF_EP_NONE && !clamp; /* mf_dw_pixels stores straight into the output */
    const uint32_t *weights = (const uint32_t *)(const void *)p->weights;
    const int32_t w_group = lshift & MF_W16 ? 4 + 2 * taps : taps; /* weight words of a group */
    intptr_t inner[MF_DW_TAPS_MAX]; /* the taps of a pixel inside the image, from its first one */
    intptr_t tap[MF_DW_TAPS_MAX];   /* the taps of a border pixel: addresses (zrow outside) */
    intptr_t tap_b[9];              /* the second of a pair of pixels by address (mf_dw_pairs) */
    const int8_t *rows[MF_DW_ROWS_MAX];
    uint32_t stage[MF_STAGE_MAX / 4];
    const int32_t per = MF_STAGE_MAX / 4, stages = (groups + per - 1) / per;
    /* the output columns whose windows lie inside the image's width: [x_lo, x_hi) */
    const int32_t x_lo = (p->pad_w + p->stride_w - 1) / p->stride_w;
    const int32_t last = p->in_w - 1 - span_w + p->pad_w;
    const int32_t x_hi = last < 0 ? 0 : MF_MIN(last / p->stride_w + 1, out_w);
    /* 3x3, stored straight into the output: pixels go two at a time (mf_dw_pairs.h), a run of
     * interior ones by offsets, any other two neighbours by addresses (`linked`) */
    /* the second pixel of a pair may store as it goes when no store can reach a word still to be
     * read: the output apart from the input, or over it whole pixels away (a store of a group
     * then meets only words of that group, which both windows have read) */
    const uintptr_t in_lo = (uintptr_t)input, in_hi = in_lo + (uintptr_t)(p->batches * p->in_h * row_bytes);
    const uintptr_t out_lo = (uintptr_t)output;
    const uintptr_t out_hi = out_lo + (uintptr_t)((p->batches * out_h * out_w - 1) * out_stride + c);
    const int b_direct = out_hi <= in_lo || in_hi <= out_lo ||
                         (out_stride == c && (out_lo > in_lo ? out_lo - in_lo : in_lo - out_lo) % (uintptr_t)c == 0);
    uint32_t *const b_held = b_direct ? NULL : stage;
    /* a pair's second pixel one or two columns right of the first: their windows share columns */
    const int near = !MF_MVE && !reverse && k_h == 3 && k_w == 3 && dil_w == 1 && p->stride_w <= 2;
    const int pair = near ? p->stride_w : MF_DW_KIND_ANY;
    const int paired = direct && taps == 9 && (groups <= per || b_direct) &&
                       (MF_MVE || (pair == MF_DW_KIND_ADJ    ? MF_DW_ADJ
                                   : pair == MF_DW_KIND_STEP2 ? MF_DW_STEP2
                                                              : MF_DW_SPREAD)); /* (Helium: mf_dw_pixels') */
    const int linked = paired && groups >= MF_DW_LINK_GROUPS;
#if MF_DW_EDGES && !MF_MVE
    /* stride 2, padding 0 on the left and 1 on the right (SAME over an even width): a row whose
     * windows lie inside the image vertically (or all but their first or last row: mf_dw_pairs'
     * zv, that row at zrow) goes as one run of pairs to its right border, the last pair's second
     * pixel reading zrow for its window's third column (mf_dw_pairs' zr), not a run, then a pair
     * by addresses of its last interior pixel and the border one (or the row's pixels in pairs
     * by addresses) */
    const int edge2 = paired && pair == MF_DW_KIND_STEP2 && p->pad_w == 0 && p->in_w == 2 * out_w &&
                      out_w % 2 == 0 && zrow != 0;
#endif
#if MF_DW_QUADS && !MF_MVE
    /* runs four at a time (mf_dw_quads.h): 3x3, stride and dilation 1 along the row, every store
     * unable to reach a word still to be read; cols its column offsets from the leftmost pixel */
    const int quads = direct && b_direct && k_h == 3 && k_w == 3 && p->stride_w == 1 && dil_w == 1;
    intptr_t cols[18], cols_at[18]; /* a run's offsets; four pixels' addresses */
    /* padding 1 (zrow) along the row, forward: a row whose window rows all lie inside the image
     * (or all but its first or its last: mf_dw_quads' zv) starts with `row_quads` quads in one
     * call by offsets, from the left border (the first quad's column 0 at zrow) to the right one
     * if they reach it (4 row_quads == in_w: the last quad's column 5 there too), not quads by
     * addresses at each end (or all along) and a run between; where that is one quad, only in
     * calls that have the run's offsets anyway (KWS's five-wide rows, a band call a row, keep
     * their quad by addresses: the offsets would cost it what it saves) */
    const int32_t fours = MF_MIN(out_w, p->in_w) / 4;
    const int32_t row_quads = MF_DW_EDGES && quads && !reverse && p->pad_w == 1 && zrow != 0 &&
                              (fours >= 2 || x_hi - x_lo >= 4) ? fours : 0;
#endif
    const int32_t dir = reverse ? -1 : 1, dst_step = dir * out_stride;
    int8_t *held = NULL; /* the first pixel of a pair by addresses, its taps in `tap` */
    int32_t nn, yy, xx, ky, kx, si;

    { /* (sums, not products, a 3-wide window's rows unrolled: every call pays this, a
       * cascade's band calls one a row) */
        const intptr_t down = (intptr_t)p->dilation_h * row_bytes, right = (intptr_t)dil_w * c;
        intptr_t *at = inner, row = 0;
        for (ky = 0; ky < k_h; ky++, row += down) {
            if (k_w == 3) {
                at[0] = row;
                at[1] = row + right;
                at[2] = row + 2 * right;
                at += 3;
            } else {
                intptr_t off = row;
                for (kx = 0; kx < k_w; kx++, off += right) {
                    *at++ = off;
                }
            }
        }
    }
#if MF_DW_QUADS && !MF_MVE
    if (quads && (x_hi - x_lo >= 4 || row_quads)) { /* rows with runs of four interior pixels */
        for (ky = 0; ky < 3; ky++) {
            mf_dw_quad_cols(cols + 6 * ky, inner[3 * ky], c);
        }
    }
#endif
    for (nn = 0; nn < p->batches; nn++) {
        const int32_t n = reverse ? p->batches - 1 - nn : nn;
        const int8_t *image = input + n * p->in_h * row_bytes;
        for (yy = 0; yy < out_h; yy++) {
            const int32_t oy = reverse ? out_h - 1 - yy : yy;
            const int32_t y0 = oy * p->stride_h - p->pad_h;
            const int rows_in = y0 >= 0 && y0 + span_h < p->in_h;
#if MF_DW_EDGES && !MF_MVE
            if (edge2) { /* (forward) */
                const int32_t done = mf_dw_edge2_rows(p, inner, image, output + (n * out_h + oy) * out_w * out_stride,
                                                      oy, b_held, out_stride);
                if (done) {
                    yy += done - 1;
                    continue;
                }
            }
#endif
            for (ky = 0; ky < k_h; ky++) { /* the window's input rows, NULL outside the image */
                const int32_t iy = y0 + ky * p->dilation_h;
                rows[ky] = iy >= 0 && iy < p->in_h ? image + iy * row_bytes : NULL;
            }
            xx = 0;
#if MF_DW_QUADS && !MF_MVE
            if (row_quads) { /* (forward: the row's first pixel first) */
                /* all three window rows inside the image, or the first or the last one outside
                 * (zv: its words the zero point's row) */
                const int32_t zv = rows_in ? 0
                                   : rows[0] == NULL && rows[1] != NULL && rows[2] != NULL ? 4
                                   : rows[0] != NULL && rows[1] != NULL && rows[2] == NULL ? 52 : -1;
                if (zv >= 0) {
                    const uintptr_t at = (uintptr_t)image + (uintptr_t)(y0 * row_bytes) - (uintptr_t)c;
                    mf_dw_quads(cols, (const int8_t *)at, row_quads, c, weights, p->quant, groups, lshift,
                                output + (n * out_h + oy) * out_w * out_stride, dst_step, zrow,
                                row_quads >= 2 && 4 * row_quads == p->in_w ? zrow : 0, zv);
                    xx = 4 * row_quads;
                }
            }
#endif
            for (; xx < out_w; xx++) {
                const int32_t ox = reverse ? out_w - 1 - xx : xx;
                const int32_t x0 = ox * p->stride_w - p->pad_w;
                const int32_t pix = (n * out_h + oy) * out_w + ox;
                const intptr_t *taps_at = inner;
                const int8_t *base = NULL;
                intptr_t *const list = held != NULL ? tap_b : tap;
                const int inside = rows_in && x0 >= 0 && x0 + span_w < p->in_w;
#if MF_DW_QUADS && !MF_MVE
                if (quads && held == NULL && (inside ? out_w - xx == 4 : xx + 4 <= out_w)) {
                    /* a border pixel and the next three, or the row's last four: by addresses,
                     * from the leftmost one */
                    /* its six columns from ix0; [k_lo, k_hi) inside the image */
                    const int32_t ix0 = (reverse ? ox - 3 : ox) - p->pad_w;
                    const int32_t k_lo = ix0 < 0 ? -ix0 : 0, k_hi = MF_MIN(6, p->in_w - ix0);
                    for (ky = 0; ky < 3; ky++) {
                        intptr_t *const col = cols_at + 6 * ky;
                        if (rows[ky] == NULL) { /* a row outside the image: all six at zrow */
                            for (kx = 0; kx < 6; kx++) {
                                col[kx] = zrow;
                            }
                            continue;
                        }
                        mf_dw_quad_cols(col, (intptr_t)(rows[ky] + ix0 * c), c);
                        for (kx = 0; kx < k_lo; kx++) {
                            col[kx] = zrow;
                        }
                        for (kx = k_hi; kx < 6; kx++) {
                            col[kx] = zrow;
                        }
                    }
                    mf_dw_quads(cols_at, NULL, 1, dir, weights, p->quant, groups, lshift, output + pix * out_stride,
                                dst_step, 0, 0, 0);
                    xx += 3;
                    continue;
                }
#endif
                if (inside) {
                    base = rows[0] + x0 * c;
                } else {
                    /* in_w a local: the list's stores could alias p's fields, which the loop
                     * would reload per tap; ix < 0 wraps above in_w, one unsigned compare */
                    intptr_t *tp = list;
                    for (ky = 0; ky < k_h; ky++) {
                        const int8_t *row = rows[ky];
                        int32_t ix = x0;
                        for (kx = 0; kx < k_w; kx++, ix += dil_w) {
                            *tp++ = row != NULL && (uint32_t)ix < in_w ? (intptr_t)(row + ix * c) : zrow;
                        }
                    }
                    taps_at = list;
                }
                if (direct && (base == NULL || held != NULL)) {
                    /* by addresses: a border pixel, or the second of a pair */
                    int8_t *dst = output + pix * out_stride;
                    if (held != NULL) { /* an interior second pixel: the window's offsets from its base */
                        mf_dw_pairs(tap, base != NULL ? inner : tap_b, NULL, 1, (intptr_t)base, weights, p->quant,
                                    groups, lshift, held, dst_step, b_held, pair, 0, NULL);
                        held = NULL;
                    } else if (linked && xx + 1 < out_w) {
                        held = dst;
                    } else {
                        mf_dw_pixels(tap, taps, NULL, 0, weights, p->quant, groups, lshift, dst, 1, 0, 0);
                    }
                    continue;
                }
                if (direct) {
                    /* an interior pixel: the whole run of them to the row's interior end */
                    const int32_t run = reverse ? ox - x_lo + 1 : x_hi - ox;
                    const int32_t step = dir * p->stride_w * c;
                    int32_t rest = run, left;
                    int8_t *dst = output + pix * out_stride;
#if MF_DW_QUADS && !MF_MVE
                    if (quads && run >= 4) {
                        mf_dw_quads(cols, base, run / 4, step, weights, p->quant, groups, lshift, dst, dst_step, 0,
                                    0, 0);
                        base += (run & ~3) * step;
                        dst += (run & ~3) * dst_step;
                        rest = run & 3;
                    }
                    if (quads && out_w - (xx + run - rest) == 4) {
                        /* the run's rest and the border pixels after it: one quad by addresses
                         * (the next turn), not a pair and one or two more */
                        xx += run - rest - 1;
                        continue;
                    }
#endif
                    left = paired ? rest % 2 : rest;
                    if (rest > left) {
                        mf_dw_pairs(inner, inner, base, rest / 2, step, weights, p->quant, groups, lshift, dst,
                                    dst_step, b_held, pair, 0, NULL);
                        base += (rest - left) * step;
                        dst += (rest - left) * dst_step;
                    }
                    if (linked && left && xx + run < out_w) { /* the last one pairs with the next */
                        for (ky = 0; ky < 9; ky++) {
                            tap[ky] = (intptr_t)(base + inner[ky]);
                        }
                        held = dst;
                    } else if (left) {
                        mf_dw_pixels(inner, taps, base, 0, weights, p->quant, groups, lshift, dst, left, step,
                                     dst_step);
                    }
                    xx += run - 1;
                    continue;
                }
                /* through the stage, MF_STAGE_MAX channels at a time (last first when reversed) */
                for (si = 0; si < stages; si++) {
                    const int32_t st = reverse ? stages - 1 - si : si;
                    const int32_t g0 = st * per, ng = MF_MIN(per, groups - g0);
                    mf_dw_pixels(taps_at, taps, base, g0, weights + g0 * w_group, p->quant + g0 * MF_Q_WORDS, ng,
                                 lshift, (int8_t *)stage, 1, 0, 0);
                    mf_fast_finish((const int8_t *)stage, 4 * ng, clamp, lo, hi, e, aq, kind, res,
                                   output + pix * out_stride + 4 * g0, pix * c + 4 * g0, reverse);
                }
            }
        }
    }
}

/* The dense kernel's loop, and the strided one's (separate entry points, so that the dense code
 * stays exactly as it was: the stride is folded away at compile time). */
MF_INLINE void mf_dwconv2d_s8_dsp_body(const mf_dwconv2d_s8_dsp_params *p, const mf_epilogue_s8 *e,
    const mf_fast_addsub *aq, int kind, const int8_t *input, const int8_t *res, int8_t *output)
{
    mf_dwconv2d_s8_dsp_loop(p, e, aq, kind, input, res, output, 0);
}

MF_INLINE void mf_dwconv2d_s8_dsp_strided_body(const mf_dwconv2d_s8_dsp_params *p, const mf_epilogue_s8 *e,
    const mf_fast_addsub *aq, int kind, const int8_t *input, const int8_t *res, int8_t *output)
{
    mf_dwconv2d_s8_dsp_loop(p, e, aq, kind, input, res, output, 1);
}

#endif /* MF_DWCONV2D_S8_DSP_BODY_H */
