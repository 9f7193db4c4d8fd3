/* CONV_2D int8, two output pixels at a time (in_c % 8 == 0, horizontal dilation 1; any kernel
 * size, stride, padding; int8 weights in flash).
 *
 * mf_conv2d_s8_gemm computes one pixel's four channels per pass over its window, so every weight
 * word it loads and sign-extends serves 4 MACs. This kernel takes two pixels (consecutive in
 * raster order) whose windows have the same run structure (mf_gemm_segments: always, inside the
 * image) and computes two channels of both per pass: per four window values it loads one word of
 * each pixel and one of each channel, sign-extends each once (SXTB16 even / odd) and does 8
 * SMLAD, so a weight word serves both pixels and an input word both channels (4 loads and 8
 * SXTB16 per 16 MACs, against 5 and 10 per 16 for the one-pixel loop). A pixel whose window
 * differs from its partner's (at the image border) runs alone, through mf_conv2d_s8_gemm's
 * one-pixel blocks (mf_fast_blocks). The params, weights and channel table are mf_conv2d_s8_gemm's (one
 * layout for both: in_c % 8 == 0 makes every chunk 8 values), so a Helium build runs the gemm
 * loop (mf_gemm_mve.h) instead.
 *
 * Access order (the planner's unstaged pixel units): both pixels' channels are computed into a
 * stack stage before the first is stored (so no store precedes a read of either window), then
 * finished (clamp, epilogue) pixel by pixel in increasing order (decreasing when reversed). No
 * arena scratch. */
#ifndef MF_CONV2D_S8_PAIR_BODY_H
#define MF_CONV2D_S8_PAIR_BODY_H

#include "mf_conv2d_s8_gemm_body.h"

#define MF_PAIR_OUT_MAX 256 /* output channels of a pixel (the stage holds two pixels) */

#if MF_ASM_LOOPS
/* Per 4 values of both pixels: their words and one of each channel: 3 loads, 6 SXTB16, 8 SMLAD;
 * the second channel's word: 1 load, 2 SXTB16, 4 SMLAD. */
#define MF_PAIR4(lda, ldb, ldw0, c0, d0, ldw1, c1, d1) \
    lda "\n\t" ldb "\n\t" ldw0 "\n\t"           \
    "sxtb16 %[oa], %[ea], ror #8\n\t"             \
    "sxtb16 %[ea], %[ea]\n\t"                     \
    "sxtb16 %[ob], %[eb], ror #8\n\t"             \
    "sxtb16 %[eb], %[eb]\n\t"                     \
    "sxtb16 %[wo], %[we], ror #8\n\t"             \
    "sxtb16 %[we], %[we]\n\t"                     \
    "smlad %[" c0 "], %[ea], %[we], %[" c0 "]\n\t"        \
    "smlad %[" d0 "], %[eb], %[we], %[" d0 "]\n\t"        \
    "smlad %[" c0 "], %[oa], %[wo], %[" c0 "]\n\t"        \
    "smlad %[" d0 "], %[ob], %[wo], %[" d0 "]\n\t"        \
    ldw1 "\n\t"                                  \
    "sxtb16 %[wo], %[we], ror #8\n\t"             \
    "sxtb16 %[we], %[we]\n\t"                     \
    "smlad %[" c1 "], %[ea], %[we], %[" c1 "]\n\t"        \
    "smlad %[" d1 "], %[eb], %[we], %[" d1 "]\n\t"        \
    "smlad %[" c1 "], %[oa], %[wo], %[" c1 "]\n\t"        \
    "smlad %[" d1 "], %[ob], %[wo], %[" d1 "]\n\t"
/* One chunk of 8 values of both pixels and channels (32 MACs). */
#define MF_PAIR_BODY                                                                            \
    MF_PAIR4("ldr %[ea], [%[xa], #4]", "ldr %[eb], [%[xb], #4]",                                \
             "ldr %[we], [%[w], #4]", "a0", "b0", "ldr %[we], [%[w], #12]", "a1", "b1")         \
    MF_PAIR4("ldr %[ea], [%[xa]], #8", "ldr %[eb], [%[xb]], #8",                                \
             "ldr %[we], [%[w], #8]", "a1", "b1", "ldr %[we], [%[w]], #32", "a0", "b0")
/* n >= 1 chunks, looping back to label `l` while chunks remain. */
#define MF_PAIR_CHUNK(l) MF_PAIR_BODY "subs %[n], %[n], #1\n\t" "bne " l "b\n\t"
/* The same, two chunks a turn (an odd count enters the first turn at its second chunk); labels
 * l and m. */
#define MF_PAIR_CHUNKS2(l, m)                                                                   \
    "lsrs %[n], %[n], #1\n\t"                                                                   \
    "bcc " l "f\n\t"                                                                            \
    "adds %[n], %[n], #1\n\t"                                                                   \
    "b " m "f\n\t"                                                                              \
    l ":\n\t" MF_PAIR_BODY                                                                     \
    m ":\n\t" MF_PAIR_BODY                                                                     \
    "subs %[n], %[n], #1\n\t"                                                                   \
    "bne " l "b\n\t"
#endif

/* Two channels of two pixels: a[0], a[1] (pixel A, channels 0 and 1), a[2], a[3] (pixel B)
 * += the dot products of n8 >= 1 chunks of 8 values at xa, xb with the weights at *wp, which are
 * mf_conv2d_s8_gemm's ([4 channels][8 values] per chunk; this pass reads the first two channels'
 * 4 words of each chunk, [w + 0, 4, 8, 12], and skips the other two's); *wp advances past the chunks. */
MF_INLINE void mf_pair_dot(const int8_t *xa, const int8_t *xb, const uint32_t **wp, int32_t n8,
                           int32_t *a)
{
    const uint32_t *w = *wp;
    int32_t a0 = a[0], a1 = a[1], b0 = a[2], b1 = a[3];
#if MF_ASM_LOOPS
    /* Values 4..7 first, then 0..3, so that the chunk's last loads post-increment the pointers.
     * Per chunk: 8 loads, 12 SXTB16, 16 SMLAD (32 MACs). */
    uint32_t ea, oa, eb, ob, we, wo;
    __asm__ volatile(
        "1:\n\t" MF_PAIR_CHUNK("1")
        : [a0] "+r"(a0), [a1] "+r"(a1), [b0] "+r"(b0), [b1] "+r"(b1), [xa] "+r"(xa), [xb] "+r"(xb),
          [w] "+r"(w), [n] "+r"(n8), [ea] "=&r"(ea), [oa] "=&r"(oa), [eb] "=&r"(eb), [ob] "=&r"(ob),
          [we] "=&r"(we), [wo] "=&r"(wo)
        :
        : "cc", "memory");
#else
    int32_t k;
    for (; n8 > 0; n8--, w += 8) {
        for (k = 0; k < 2; k++, xa += 4, xb += 4) {
            const uint32_t va = mf_load32(xa), vb = mf_load32(xb), w0 = w[k], w1 = w[2 + k];
            const uint32_t ea = mf_sxtb16(va), oa = mf_sxtb16_ror8(va);
            const uint32_t eb = mf_sxtb16(vb), ob = mf_sxtb16_ror8(vb);
            const uint32_t e0 = mf_sxtb16(w0), o0 = mf_sxtb16_ror8(w0);
            const uint32_t e1 = mf_sxtb16(w1), o1 = mf_sxtb16_ror8(w1);
            a0 = mf_smlad(oa, o0, mf_smlad(ea, e0, a0));
            b0 = mf_smlad(ob, o0, mf_smlad(eb, e0, b0));
            a1 = mf_smlad(oa, o1, mf_smlad(ea, e1, a1));
            b1 = mf_smlad(ob, o1, mf_smlad(eb, e1, b1));
        }
    }
#endif
    a[0] = a0;
    a[1] = a1;
    a[2] = b0;
    a[3] = b1;
    *wp = w;
}

/* The runs of a pixel pair: per run both pixels' addresses and its 8-value chunks. */
typedef struct {
    const int8_t *xa, *xb;
    int32_t n8;
} mf_pair_run;

/* The state of mf_pair_blocks's loop (the assembly reads it by offset: keep the order). */
typedef struct {
    const mf_pair_run *runs, *runs_end; /* 0, 4 */
    const uint32_t *w;                  /* 8: the block's weights */
    const int32_t *qb;                  /* 12: the block's table */
    int32_t lshift;                     /* 16 */
    int8_t *sta, *stb;                  /* 20, 24: where the block's values go */
    int32_t blocks;                     /* 28: blocks left */
    int32_t wstep;                      /* 32: weight bytes per block */
} mf_pair_ctx;

#if MF_ASM_LOOPS
/* One channel pair of the block (h: 0 or 1) over every run; labels from l. Frame: [sp] ctx,
 * [sp, #4] the run cursor, [sp, #8] the runs' end. */
#define MF_PAIR_PASS(h, l1, l2, l3)                               \
    "ldr %[ea], [sp]\n\t"                                         \
    "ldrd %[xa], %[xb], [%[ea]]\n\t"                              \
    "strd %[xa], %[xb], [sp, #4]\n\t"                             \
    "ldrd %[w], %[oa], [%[ea], #8]\n\t"                           \
    "add %[w], %[w], #(16 * " #h ")\n\t"                          \
    "ldrd %[a0], %[a1], [%[oa], #(8 * " #h ")]\n\t"               \
    "mov %[b0], %[a0]\n\t"                                        \
    "mov %[b1], %[a1]\n\t"                                        \
    l1 ":\n\t"                                                    \
    "ldr %[ea], [sp, #4]\n\t"                                     \
    "ldr %[xa], [%[ea]], #4\n\t" /* (not LDM: its registers go in */ \
    "ldr %[xb], [%[ea]], #4\n\t" /* number order) */                \
    "ldr %[n], [%[ea]], #4\n\t"                                     \
    "str %[ea], [sp, #4]\n\t"                                     \
    MF_PAIR_CHUNKS2(l2, l3)                                       \
    "ldrd %[ea], %[eb], [sp, #4]\n\t"                             \
    "cmp %[ea], %[eb]\n\t"                                        \
    "bne " l1 "b\n\t"
/* Requantize accumulators a, b (channels off/4 - 4, +1 of the table at q; shift ls). */
#define MF_PAIR_RQ2(a, b, off)                                    \
    "ldrd %[oa], %[ob], [%[w], #" #off "]\n\t"                    \
    "ldrd %[we], %[wo], [%[w], #(" #off " + 16)]\n\t"             \
    "lsl %[" a "], %[" a "], %[n]\n\t"                            \
    "lsl %[" b "], %[" b "], %[n]\n\t"                            \
    "smmlar %[we], %[" a "], %[oa], %[we]\n\t"                    \
    "smmlar %[wo], %[" b "], %[ob], %[wo]\n\t"                    \
    "add %[we], %[we], %[" a "], asr #31\n\t"                     \
    "add %[wo], %[wo], %[" b "], asr #31\n\t"                     \
    "ldrd %[oa], %[ob], [%[w], #(" #off " + 32)]\n\t"             \
    "asr %[we], %[we], %[oa]\n\t"                                 \
    "asr %[wo], %[wo], %[ob]\n\t"                                 \
    "ssat %[" a "], #8, %[we]\n\t"                                \
    "ssat %[" b "], #8, %[wo]\n\t"
#endif

/* Every block of four channels of a pixel pair (runs in c->runs, both pixels' addresses): the
 * accumulators start at the biases, take both channel pairs' passes over the runs, are
 * requantized and stored at c->sta[0 .. 4 blocks) and c->stb. c->blocks >= 1. */
MF_HELPER void mf_pair_blocks(mf_pair_ctx *c)
{
#if MF_ASM_LOOPS
    int32_t a0, a1, b0, b1;
    const int8_t *xa, *xb;
    const uint32_t *w;
    uint32_t n = (uint32_t)(uintptr_t)c, ea, oa, eb, ob, we, wo;
    __asm__ volatile(
        "sub sp, sp, #32\n\t"
        "str %[n], [sp]\n\t"
        "10:\n\t" /* block */
        MF_PAIR_PASS(0, "11", "12", "13")
        "strd %[a0], %[a1], [sp, #16]\n\t"
        "strd %[b0], %[b1], [sp, #24]\n\t"
        MF_PAIR_PASS(1, "14", "15", "16")
        "ldrd %[xa], %[xb], [sp, #16]\n\t" /* pixel A channels 0, 1 */
        "ldrd %[ea], %[eb], [sp, #24]\n\t" /* pixel B channels 0, 1 */
        "ldr %[w], [sp]\n\t"
        "ldrd %[w], %[n], [%[w], #12]\n\t" /* table, left shift */
        MF_PAIR_RQ2("xa", "xb", 16) MF_PAIR_RQ2("a0", "a1", 24)
        MF_PAIR_RQ2("ea", "eb", 16) MF_PAIR_RQ2("b0", "b1", 24)
        "ldr %[n], [sp]\n\t"
        "ldrd %[oa], %[ob], [%[n], #20]\n\t"
        "strb %[xa], [%[oa]], #1\n\t"
        "strb %[xb], [%[oa]], #1\n\t"
        "strb %[a0], [%[oa]], #1\n\t"
        "strb %[a1], [%[oa]], #1\n\t"
        "strb %[ea], [%[ob]], #1\n\t"
        "strb %[eb], [%[ob]], #1\n\t"
        "strb %[b0], [%[ob]], #1\n\t"
        "strb %[b1], [%[ob]], #1\n\t"
        "strd %[oa], %[ob], [%[n], #20]\n\t"
        "ldrd %[xa], %[xb], [%[n], #8]\n\t" /* w, qb */
        "ldrd %[ea], %[eb], [%[n], #28]\n\t" /* blocks left, wstep */
        "add %[xa], %[xa], %[eb]\n\t"
        "add %[xb], %[xb], #64\n\t"
        "strd %[xa], %[xb], [%[n], #8]\n\t"
        "subs %[ea], %[ea], #1\n\t"
        "str %[ea], [%[n], #28]\n\t"
        "bne 10b\n\t"
        "add sp, sp, #32\n\t"
        : [a0] "=&r"(a0), [a1] "=&r"(a1), [b0] "=&r"(b0), [b1] "=&r"(b1), [xa] "=&r"(xa),
          [xb] "=&r"(xb), [w] "=&r"(w), [n] "+r"(n), [ea] "=&r"(ea), [oa] "=&r"(oa), [eb] "=&r"(eb),
          [ob] "=&r"(ob), [we] "=&r"(we), [wo] "=&r"(wo)
        :
        : "cc", "memory");
#else
    const uint32_t *wb = c->w;
    const int32_t *qb = c->qb;
    int8_t *sta = c->sta, *stb = c->stb;
    int32_t b, h;
    const mf_pair_run *r;
    for (b = 0; b < c->blocks; b++, qb += MF_Q_WORDS, sta += 4, stb += 4, wb += c->wstep / 4) {
        int32_t acc[2][4];
        mf_acc4 A, B;
        for (h = 0; h < 2; h++) {
            const uint32_t *w = wb + 4 * h; /* the pair's words of the first chunk */
            int32_t *a = acc[h];
            a[0] = a[2] = qb[MF_Q_BIAS + 2 * h];
            a[1] = a[3] = qb[MF_Q_BIAS + 2 * h + 1];
            for (r = c->runs; r != c->runs_end; r++) {
                mf_pair_dot(r->xa, r->xb, &w, r->n8, a);
            }
        }
        A.a0 = acc[0][0], A.a1 = acc[0][1], A.a2 = acc[1][0], A.a3 = acc[1][1];
        B.a0 = acc[0][2], B.a1 = acc[0][3], B.a2 = acc[1][2], B.a3 = acc[1][3];
        mf_fast_requant4(&A, qb, c->lshift);
        mf_fast_requant4(&B, qb, c->lshift);
        sta[0] = (int8_t)A.a0, sta[1] = (int8_t)A.a1, sta[2] = (int8_t)A.a2, sta[3] = (int8_t)A.a3;
        stb[0] = (int8_t)B.a0, stb[1] = (int8_t)B.a1, stb[2] = (int8_t)B.a2, stb[3] = (int8_t)B.a3;
    }
#endif
}

/* The window of output pixel `pix` (raster index over batches, rows, columns) as segments: the
 * shared relative list `inner` from *base when it lies inside the image, else absolute ones in
 * `own` (*base NULL). Returns the count; *segs is set to the list used. */
MF_HELPER int32_t mf_pair_window(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int32_t pix,
                              const mf_seg *inner, int32_t n_inner, mf_seg *own,
                              const mf_seg **segs, const int8_t **base)
{
    const int32_t ox = pix % p->out_w, oy = pix / p->out_w % p->out_h, n = pix / (p->out_w * p->out_h);
    const int32_t row_bytes = p->in_w * p->in_c;
    const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
    const int8_t *image = input + n * p->in_h * row_bytes;
    const int8_t *rows[MF_GEMM_ROWS];
    int32_t ky;
    if (y0 >= 0 && y0 + (p->k_h - 1) * p->dilation_h < p->in_h && x0 >= 0 && x0 + p->k_w - 1 < p->in_w) {
        *segs = inner;
        *base = image + y0 * row_bytes + x0 * p->in_c;
        return n_inner;
    }
    for (ky = 0; ky < p->k_h; ky++) {
        const int32_t iy = y0 + ky * p->dilation_h;
        rows[ky] = iy >= 0 && iy < p->in_h ? image + iy * row_bytes : NULL;
    }
    *segs = own;
    *base = NULL;
    return mf_gemm_segments(p, rows, x0, 0, own);
}

/* The two lists have the same runs (lengths), so the pixels can share a pass. */
static int mf_pair_same(const mf_seg *a, int32_t na, const mf_seg *b, int32_t nb)
{
    int32_t s;
    if (a == b) {
        return na == nb;
    }
    if (na != nb) {
        return 0;
    }
    for (s = 0; s < na; s++) {
        if (a[s].n != b[s].n) {
            return 0;
        }
    }
    return 1;
}

/* The staged channels of one pixel to its output: copied, or finished (clamp, epilogue). */
MF_INLINE void mf_pair_store(const mf_conv2d_s8_gemm_params *p, const mf_epilogue_s8 *e,
                             const mf_fast_addsub *aq, int kind, const int8_t *stage, const int8_t *res,
                             int8_t *output, int32_t pix)
{
    const int32_t out_c = p->out_c;
    int8_t *out = output + pix * out_c;
    if (kind == MF_EP_NONE && !p->clamp) {
        mf_gemm_copy(out, stage, out_c, 0); /* (a plain loop here becomes a memcpy call) */
        return;
    }
    mf_fast_finish(stage, out_c, p->clamp, p->act_min, p->act_max, e, aq, kind, res, out, pix * out_c,
                   p->reverse);
}

MF_INLINE void mf_conv2d_s8_pair_body(const mf_conv2d_s8_gemm_params *p, const mf_epilogue_s8 *e,
                                      const mf_fast_addsub *aq, int kind, const int8_t *input,
                                      const int8_t *res, int8_t *output)
{
#if MF_MVE
    mf_conv2d_s8_gemm_loop(p, e, aq, kind, input, res, output, 0);
#else
    const int32_t total = p->batches * p->out_h * p->out_w;
    const int32_t step = p->reverse ? -1 : 1;
    uint32_t stage[2][MF_PAIR_OUT_MAX / 4];
    mf_seg inner[MF_GEMM_SEGMENTS], own[2][MF_GEMM_SEGMENTS];
    const int32_t n_inner = mf_gemm_segments(p, NULL, 0, 1, inner);
    mf_pair_run runs[MF_GEMM_SEGMENTS];
    mf_pair_ctx ctx;
    int32_t k = 0, s;
    ctx.runs = runs;
    ctx.lshift = p->lshift;
    ctx.wstep = 4 * p->depth;
    while (k < total) {
        /* pixel q first, then its partner q + step (in the run's order) */
        const int32_t q = p->reverse ? total - 1 - k : k;
        const mf_seg *sa, *sb;
        const int8_t *ba, *bb;
        const int32_t na = mf_pair_window(p, input, q, inner, n_inner, own[0], &sa, &ba);
        int32_t nb = 0, both = 0;
        if (k + 1 < total) {
            nb = mf_pair_window(p, input, q + step, inner, n_inner, own[1], &sb, &bb);
            both = mf_pair_same(sa, na, sb, nb);
        }
        if (!both) { /* a pixel alone: mf_conv2d_s8_gemm's one-pixel blocks */
            mf_fast_blocks(sa, na, ba, (const uint32_t *)(const void *)p->weights, p->quant,
                           (p->out_c + 3) / 4, p->lshift, (int8_t *)stage[0]);
        } else {
            for (s = 0; s < na; s++) {
                runs[s].xa = (const int8_t *)((uintptr_t)ba + (uintptr_t)sa[s].start);
                runs[s].xb = (const int8_t *)((uintptr_t)bb + (uintptr_t)sb[s].start);
                runs[s].n8 = sa[s].n >> 1;
            }
            ctx.runs_end = runs + na;
            ctx.w = (const uint32_t *)(const void *)p->weights;
            ctx.qb = p->quant;
            ctx.sta = (int8_t *)stage[0];
            ctx.stb = (int8_t *)stage[1];
            ctx.blocks = (p->out_c + 3) / 4;
            mf_pair_blocks(&ctx);
        }
        mf_pair_store(p, e, aq, kind, (const int8_t *)stage[0], res, output, q);
        if (both) {
            mf_pair_store(p, e, aq, kind, (const int8_t *)stage[1], res, output, q + step);
        }
        k += both ? 2 : 1;
    }
#endif
}

#endif /* MF_CONV2D_S8_PAIR_BODY_H */
