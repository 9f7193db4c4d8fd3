/* CONV_2D int8, two output pixels at a time (in_c % 8 == 0, horizontal dilation 1, at most
 * MF_PAIR_OUT_MAX output channels unless there is nothing to finish (no stage); any kernel size,
 * stride, padding; int8 weights in flash).
 *
 * mf_conv2d_s8_gemm computes one pixel's four channels per pass over its window, so every weight
 * word it loads and sign-extends serves 4 MACs. This kernel takes two pixels (consecutive in
 * raster order) whose windows have the same run structure (mf_gemm_segments: always, inside the
 * image), sign-extends both windows once into a stack buffer (per four values: pixel A's even
 * and odd int16 pairs, then pixel B's), and then computes two channels of both pixels per pass:
 * per four window values 4 loads of the buffer, one weight word per channel sign-extended once
 * (SXTB16 even / odd) and 8 SMLAD, so a weight word serves both pixels (6 loads, 4 SXTB16, 8
 * SMLAD per 16 MACs, against 5 loads and 10 SXTB16 in the one-pixel loop). A pixel whose window
 * differs from its partner's (at the image border), and every pixel of a window larger than
 * MF_PAIR_WIDE values, runs alone, through mf_conv2d_s8_gemm's one-pixel blocks (mf_fast_blocks;
 * one kernel for both keeps one fused variant in flash). The params, weights and channel table
 * are mf_conv2d_s8_gemm's (one layout for both: in_c % 8 == 0 makes every chunk 8 values), so a
 * Helium build, and an Arm core without the DSP extension, run the gemm loop instead.
 *
 * Access order (the planner's unstaged pixel units): both windows are read (into the buffer)
 * before the pair's first store; the blocks store straight into the output when there is
 * nothing to finish, else both pixels' channels go to a stack stage, then are finished (clamp,
 * epilogue) pixel by pixel in increasing order (decreasing when reversed). A lone pixel is
 * mf_conv2d_s8_gemm's (its window is read again after its earlier blocks' stores: unstaged).
 * No arena scratch. */
#ifndef MF_CONV2D_S8_PAIR_BODY_H
#define MF_CONV2D_S8_PAIR_BODY_H

#include "mf_conv2d_s8_gemm_body.h"

#define MF_PAIR_OUT_MAX 128 /* output channels of a pixel (the stage holds two pixels) */
#ifndef MF_PAIR_WIDE         /* window values of a pixel (the buffer holds both, as int16): */
#define MF_PAIR_WIDE 576     /* a build's mf_config.h sets its largest (lower/fast_gemm.py PAIR_WIDE) */
#endif

/* Helium has its own gemm loop; an Arm core without the DSP extension (M0, M3) would emulate the
 * SXTB16 / SMLAD the pair loop saves: both run mf_conv2d_s8_gemm's loop. (The host runs the
 * portable pair loop: the tests.) */
#if MF_MVE || (defined(__ARM_ARCH) && !MF_DSP)
#define MF_PAIR_LOOP 0
#else
#define MF_PAIR_LOOP 1
#endif

#if MF_PAIR_LOOP

/* The state of mf_pair_blocks's loop (the assembly reads it by offset: keep the order). */
typedef struct {
    const uint32_t *wide; /* 0: both windows sign-extended, per 4 values [A even, A odd, B even,
                             B odd] */
    int32_t n8;           /* 4: 8-value chunks of a window */
    const uint32_t *w;    /* 8: the block's weights */
    const int32_t *qb;    /* 12: the block's table */
    int32_t lshift;       /* 16 */
    int8_t *sta, *stb;    /* 20, 24: where the block's values go */
    int32_t blocks;       /* 28: blocks left */
    int32_t wstep;        /* 32: weight bytes per block */
} mf_pair_ctx;

#if MF_ASM_LOOPS
/* Four values of both pixels (buffer words la..ld) and two channels (weight words lw, lr):
 * 6 loads, 4 SXTB16, 8 SMLAD. */
#define MF_PAIR4(la, lb, lc, ld, lw, lr)                                                        \
    la "\n\t" lb "\n\t" lc "\n\t" ld "\n\t" lw "\n\t" lr "\n\t"                                 \
    "sxtb16 %[wo], %[we], ror #8\n\t"                                                           \
    "sxtb16 %[we], %[we]\n\t"                                                                   \
    "smlad %[a0], %[ea], %[we], %[a0]\n\t"                                                      \
    "smlad %[b0], %[eb], %[we], %[b0]\n\t"                                                      \
    "smlad %[a0], %[oa], %[wo], %[a0]\n\t"                                                      \
    "smlad %[b0], %[ob], %[wo], %[b0]\n\t"                                                      \
    "sxtb16 %[wo], %[wr], ror #8\n\t"                                                           \
    "sxtb16 %[wr], %[wr]\n\t"                                                                   \
    "smlad %[a1], %[ea], %[wr], %[a1]\n\t"                                                      \
    "smlad %[b1], %[eb], %[wr], %[b1]\n\t"                                                      \
    "smlad %[a1], %[oa], %[wo], %[a1]\n\t"                                                      \
    "smlad %[b1], %[ob], %[wo], %[b1]\n\t"
/* One chunk of 8 values (32 MACs): the buffer's 32 bytes, the pair's 4 words of the chunk's
 * [4 channels][8 values] (bytes 0, 4, 8, 12), both pointers post-incremented by the first loads. */
#define MF_PAIR_BODY                                                                            \
    MF_PAIR4("ldr %[ea], [%[p]], #32", "ldr %[oa], [%[p], #-28]", "ldr %[eb], [%[p], #-24]",    \
             "ldr %[ob], [%[p], #-20]", "ldr %[we], [%[w]], #32", "ldr %[wr], [%[w], #-24]")    \
    MF_PAIR4("ldr %[ea], [%[p], #-16]", "ldr %[oa], [%[p], #-12]", "ldr %[eb], [%[p], #-8]",    \
             "ldr %[ob], [%[p], #-4]", "ldr %[we], [%[w], #-28]", "ldr %[wr], [%[w], #-20]")
/* Requantize accumulators a, b (the table's channels at word offset off / 4 - 4, + 1; table w,
 * shift n). */
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

/* Every block of four channels of a pixel pair (c->wide): the accumulators start at the biases,
 * take a pass per channel pair over the window's chunks, are requantized and stored at
 * c->sta[0 .. 4 blocks) and c->stb. c->blocks >= 1, c->n8 >= 1. */
MF_HELPER void mf_pair_blocks(mf_pair_ctx *c)
{
#if MF_ASM_LOOPS
    /* Frame: [sp] c, [sp, #4] the pass's byte offset (0: channels 0-1, 16: channels 2-3),
     * [sp, #8] the first pass's accumulators. Per block beside the chunks: ~50 instructions. */
    int32_t a0, a1, b0, b1;
    const uint32_t *p, *w;
    uint32_t n = (uint32_t)(uintptr_t)c, ea, oa, eb, ob, we, wo, wr;
    __asm__ volatile(
        "sub sp, sp, #24\n\t"
        "str %[n], [sp]\n\t"
        "10:\n\t" /* block */
        "movs %[ea], #0\n\t"
        "str %[ea], [sp, #4]\n\t"
        "20:\n\t" /* pass */
        "ldr %[ea], [sp]\n\t"
        "ldrd %[p], %[n], [%[ea]]\n\t"
        "ldrd %[w], %[oa], [%[ea], #8]\n\t"
        "ldr %[eb], [sp, #4]\n\t"
        "add %[w], %[w], %[eb]\n\t"
        "add %[oa], %[oa], %[eb], lsr #1\n\t"
        "ldrd %[a0], %[a1], [%[oa]]\n\t"
        "mov %[b0], %[a0]\n\t"
        "mov %[b1], %[a1]\n\t"
        "lsrs %[n], %[n], #1\n\t" /* two chunks a turn; an odd count enters at the second */
        "bcc 21f\n\t"
        "adds %[n], %[n], #1\n\t"
        "b 22f\n\t"
        "21:\n\t" MF_PAIR_BODY
        "22:\n\t" MF_PAIR_BODY
        "subs %[n], %[n], #1\n\t"
        "bne 21b\n\t"
        "ldr %[ea], [sp, #4]\n\t"
        "cmp %[ea], #0\n\t"
        "bne 30f\n\t"
        "strd %[a0], %[a1], [sp, #8]\n\t"
        "strd %[b0], %[b1], [sp, #16]\n\t"
        "movs %[ea], #16\n\t"
        "str %[ea], [sp, #4]\n\t"
        "b 20b\n\t"
        "30:\n\t" /* requantize: A channels 0-1 in p, wr; B's in ea, eb; 2-3 in a0, a1, b0, b1 */
        "ldrd %[p], %[wr], [sp, #8]\n\t"
        "ldrd %[ea], %[eb], [sp, #16]\n\t"
        "ldr %[w], [sp]\n\t"
        "ldrd %[w], %[n], [%[w], #12]\n\t" /* table, left shift */
        MF_PAIR_RQ2("p", "wr", 16) MF_PAIR_RQ2("a0", "a1", 24)
        MF_PAIR_RQ2("ea", "eb", 16) MF_PAIR_RQ2("b0", "b1", 24)
        "ldr %[n], [sp]\n\t"
        "ldrd %[oa], %[ob], [%[n], #20]\n\t"
        "strb %[p], [%[oa]], #1\n\t"
        "strb %[wr], [%[oa]], #1\n\t"
        "strb %[a0], [%[oa]], #1\n\t"
        "strb %[a1], [%[oa]], #1\n\t"
        "strb %[ea], [%[ob]], #1\n\t"
        "strb %[eb], [%[ob]], #1\n\t"
        "strb %[b0], [%[ob]], #1\n\t"
        "strb %[b1], [%[ob]], #1\n\t"
        "strd %[oa], %[ob], [%[n], #20]\n\t"
        "ldrd %[p], %[wr], [%[n], #8]\n\t"   /* w, qb */
        "ldrd %[ea], %[eb], [%[n], #28]\n\t" /* blocks left, wstep */
        "add %[p], %[p], %[eb]\n\t"
        "add %[wr], %[wr], #64\n\t"
        "strd %[p], %[wr], [%[n], #8]\n\t"
        "subs %[ea], %[ea], #1\n\t"
        "str %[ea], [%[n], #28]\n\t"
        "bne 10b\n\t"
        "add sp, sp, #24\n\t"
        : [a0] "=&r"(a0), [a1] "=&r"(a1), [b0] "=&r"(b0), [b1] "=&r"(b1), [p] "=&r"(p), [w] "=&r"(w),
          [n] "+r"(n), [ea] "=&r"(ea), [oa] "=&r"(oa), [eb] "=&r"(eb), [ob] "=&r"(ob), [we] "=&r"(we),
          [wo] "=&r"(wo), [wr] "=&r"(wr)
        :
        : "cc", "memory");
#else
    const uint32_t *wb = c->w;
    const int32_t *qb = c->qb;
    int8_t *sta = c->sta, *stb = c->stb;
    int32_t b, h, k;
    for (b = 0; b < c->blocks; b++, qb += MF_Q_WORDS, sta += 4, stb += 4, wb += c->wstep / 4) {
        int32_t acc[2][4];
        mf_acc4 A, B;
        for (h = 0; h < 2; h++) {
            const uint32_t *x = c->wide, *w = wb + 4 * h; /* the pair's words of the first chunk */
            int32_t *a = acc[h];
            a[0] = a[2] = qb[MF_Q_BIAS + 2 * h];
            a[1] = a[3] = qb[MF_Q_BIAS + 2 * h + 1];
            for (k = 0; k < 2 * c->n8; k++, x += 4) { /* 4 values: word k % 2 of chunk k / 2 */
                const uint32_t w0 = w[8 * (k / 2) + k % 2], w1 = w[8 * (k / 2) + 2 + k % 2];
                a[0] = mf_smlad(x[1], mf_sxtb16_ror8(w0), mf_smlad(x[0], mf_sxtb16(w0), a[0]));
                a[1] = mf_smlad(x[1], mf_sxtb16_ror8(w1), mf_smlad(x[0], mf_sxtb16(w1), a[1]));
                a[2] = mf_smlad(x[3], mf_sxtb16_ror8(w0), mf_smlad(x[2], mf_sxtb16(w0), a[2]));
                a[3] = mf_smlad(x[3], mf_sxtb16_ror8(w1), mf_smlad(x[2], mf_sxtb16(w1), a[3]));
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

/* Both windows' runs (segments sa from base ba, sb from bb, the same lengths) sign-extended into
 * wide: per 4 values A's even and odd int16 pairs, then B's. */
static void mf_pair_widen(const mf_seg *sa, const int8_t *ba, const mf_seg *sb, const int8_t *bb,
                          int32_t nseg, uint32_t *wide)
{
    int32_t s, k;
    for (s = 0; s < nseg; s++) {
        const int8_t *xa = (const int8_t *)((uintptr_t)ba + (uintptr_t)sa[s].start);
        const int8_t *xb = (const int8_t *)((uintptr_t)bb + (uintptr_t)sb[s].start);
        for (k = 0; k < sa[s].n >> 1; k++, xa += 8, xb += 8, wide += 8) { /* a chunk */
            const uint32_t va = mf_load32(xa), vb = mf_load32(xb);
            const uint32_t ua = mf_load32(xa + 4), ub = mf_load32(xb + 4);
            wide[0] = mf_sxtb16(va);
            wide[1] = mf_sxtb16_ror8(va);
            wide[2] = mf_sxtb16(vb);
            wide[3] = mf_sxtb16_ror8(vb);
            wide[4] = mf_sxtb16(ua);
            wide[5] = mf_sxtb16_ror8(ua);
            wide[6] = mf_sxtb16(ub);
            wide[7] = mf_sxtb16_ror8(ub);
        }
    }
}

/* The window of output pixel `pix` (raster index over batches, rows, columns) as segments: the
 * shared relative list `inner` from *base when it lies inside the image, else absolute ones in
 * `own` (*base NULL). Returns the count; *segs is set to the list used. */
static int32_t mf_pair_window(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int32_t pix,
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
    if (na != nb) {
        return 0;
    }
    for (s = 0; s < na && a != b; s++) {
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

#endif /* MF_PAIR_LOOP */

MF_INLINE void mf_conv2d_s8_pair_body(const mf_conv2d_s8_gemm_params *p, const mf_epilogue_s8 *e,
                                      const mf_fast_addsub *aq, int kind, const int8_t *input,
                                      const int8_t *res, int8_t *output)
{
#if !MF_PAIR_LOOP
    mf_conv2d_s8_gemm_loop(p, e, aq, kind, input, res, output, 0);
#else
    const int32_t total = p->batches * p->out_h * p->out_w;
    const int32_t step = p->reverse ? -1 : 1;
    uint32_t stage[2][MF_PAIR_OUT_MAX / 4];
    uint32_t wide[MF_PAIR_WIDE];
    mf_seg inner[MF_GEMM_SEGMENTS], own[2][MF_GEMM_SEGMENTS];
    const int32_t n_inner = mf_gemm_segments(p, NULL, 0, 1, inner);
    /* No epilogue nor clamp, whole blocks: the blocks store straight into the output (both
     * windows are read, into `wide`, before the pair's first store; a lone pixel's blocks as
     * mf_conv2d_s8_gemm's). Otherwise through the stage. */
    const int direct = kind == MF_EP_NONE && !p->clamp && p->out_c % 4 == 0;
    mf_pair_ctx ctx;
    int32_t k = 0;
    ctx.wide = wide;
    ctx.n8 = p->depth / 8;
    ctx.lshift = p->lshift;
    ctx.wstep = 4 * p->depth;
    while (k < total) {
        /* pixel q first, then its partner q + step (in the run's order) */
        const int32_t q = p->reverse ? total - 1 - k : k;
        const mf_seg *sa, *sb = NULL;
        const int8_t *ba, *bb = NULL;
        const int32_t na = mf_pair_window(p, input, q, inner, n_inner, own[0], &sa, &ba);
        int both = 0;
        if (k + 1 < total && p->depth <= MF_PAIR_WIDE) {
            const int32_t nb = mf_pair_window(p, input, q + step, inner, n_inner, own[1], &sb, &bb);
            both = mf_pair_same(sa, na, sb, nb);
        }
        if (both) {
            mf_pair_widen(sa, ba, sb, bb, na, wide);
            ctx.w = (const uint32_t *)(const void *)p->weights;
            ctx.qb = p->quant;
            ctx.sta = direct ? output + q * p->out_c : (int8_t *)stage[0];
            ctx.stb = direct ? output + (q + step) * p->out_c : (int8_t *)stage[1];
            ctx.blocks = (p->out_c + 3) / 4;
            mf_pair_blocks(&ctx);
        } else { /* a pixel alone: mf_conv2d_s8_gemm's one-pixel blocks */
            mf_fast_blocks(sa, na, ba, (const uint32_t *)(const void *)p->weights, p->quant,
                           (p->out_c + 3) / 4, p->lshift, direct ? output + q * p->out_c : (int8_t *)stage[0]);
        }
        if (!direct) {
            mf_pair_store(p, e, aq, kind, (const int8_t *)stage[0], res, output, q);
        }
        if (!direct && both) {
            mf_pair_store(p, e, aq, kind, (const int8_t *)stage[1], res, output, q + step);
        }
        k += both ? 2 : 1;
    }
#endif
}

#endif /* MF_CONV2D_S8_PAIR_BODY_H */
