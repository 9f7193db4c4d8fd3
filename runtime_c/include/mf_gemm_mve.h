/* microfuse runtime: the Helium (MVE) path of mf_fast_blocks (mf_fast.h), the blocked dot product
 * of convolution and fully-connected. Included by mf_fast.h after mf_seg.
 *
 * Per block of four channels four scalar accumulators (starting at the biases, the same int32
 * sums as the DSP and portable paths); a chunk of 8 window values is one widening load
 * (VLDRB.S16) of the input and, per channel, one of its 8 interleaved weights and one
 * VMLADAVA.S16 (8 MACs summed into the accumulator): 10 instructions for 32 MACs with the loop;
 * a 4-value chunk the same on .S32 lanes. Every chunk is whole (the layout zero-pads), so no tail
 * predication is needed. The four sums are then requantized together (mf_mve_requant4).
 * With gcc at -O1 and above the block loop is assembly: for one segment of 8-value chunks (a
 * pointwise conv, a fully-connected row, a gathered window), and for several (a 3x3 window's
 * rows) resolved first into runs of address and chunk count, so that a block pays 4 instructions
 * per run (LDRD, DLS, CMP, BNE) instead of C's per-segment set-up.
 * Access order: a block reads only its unit's window, then stores its four values.
 * (CMSIS-NN's 16-lane VMLADAVA.S8 needs each channel's weights contiguous over 16 window values;
 * this layout interleaves them per 8, so that needs a target-specific weight layout chosen by
 * the lowering.) */
#ifndef MF_GEMM_MVE_H
#define MF_GEMM_MVE_H

#if MF_MVE
/* acc_c += x . w_c for the four channels of a block over one segment (n: its MF_SEG_N code);
 * *wp advances past the segment's weights. */
MF_INLINE void mf_mve_segment(const int8_t *x, int32_t n, const int8_t **wp, mf_acc4 *acc)
{
    const int8_t *wb = *wp;
    int32_t a0 = acc->a0, a1 = acc->a1, a2 = acc->a2, a3 = acc->a3, n8 = n >> 1;
    if (n & 1) {
        const int32x4_t xv = vldrbq_s32(x);
        a0 = vmladavaq_s32(a0, xv, vldrbq_s32(wb));
        a1 = vmladavaq_s32(a1, xv, vldrbq_s32(wb + 4));
        a2 = vmladavaq_s32(a2, xv, vldrbq_s32(wb + 8));
        a3 = vmladavaq_s32(a3, xv, vldrbq_s32(wb + 12));
        x += 4;
        wb += 16;
    }
#if defined(__GNUC__) && !defined(__clang__) /* gcc's operand constraints ("Te", "l", "w") */
    if (n8 > 0) {
        /* 10 instructions per chunk (gcc's schedule adds address copies); VMLADAVA accumulates
         * into even registers only ("Te"); a low-overhead loop (DLS / LE) of n8 >= 1 turns */
        int16x8_t xv, wv;
        __asm__ volatile("dls lr, %[n]\n\t"
                         "1:\n\t"
                         "vldrb.s16 %q[xv], [%[x]], #8\n\t"
                         "vldrb.s16 %q[wv], [%[w]], #8\n\t"
                         "vmladava.s16 %[a0], %q[xv], %q[wv]\n\t"
                         "vldrb.s16 %q[wv], [%[w]], #8\n\t"
                         "vmladava.s16 %[a1], %q[xv], %q[wv]\n\t"
                         "vldrb.s16 %q[wv], [%[w]], #8\n\t"
                         "vmladava.s16 %[a2], %q[xv], %q[wv]\n\t"
                         "vldrb.s16 %q[wv], [%[w]], #8\n\t"
                         "vmladava.s16 %[a3], %q[xv], %q[wv]\n\t"
                         "le lr, 1b\n\t"
                         : [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3), [x] "+l"(x),
                           [w] "+l"(wb), [xv] "=&w"(xv), [wv] "=&w"(wv)
                         : [n] "r"(n8)
                         : "lr", "memory");
    }
#else
    for (; n8 > 0; n8--, x += 8, wb += 32) {
        const int16x8_t xv = vldrbq_s16(x);
        a0 = vmladavaq_s16(a0, xv, vldrbq_s16(wb));
        a1 = vmladavaq_s16(a1, xv, vldrbq_s16(wb + 8));
        a2 = vmladavaq_s16(a2, xv, vldrbq_s16(wb + 16));
        a3 = vmladavaq_s16(a3, xv, vldrbq_s16(wb + 24));
    }
#endif
    acc->a0 = a0;
    acc->a1 = a1;
    acc->a2 = a2;
    acc->a3 = a3;
    *wp = wb;
}

/* The block's sums requantized (mf_mve_requant4) and stored at dst[0 .. 4). */
MF_INLINE void mf_mve_store4(const mf_acc4 *acc, const int32_t *qb, int32_t lshift, int8_t *dst)
{
    int32x4_t v = vsetq_lane_s32(acc->a0, vdupq_n_s32(0), 0);
    v = vsetq_lane_s32(acc->a1, v, 1);
    v = vsetq_lane_s32(acc->a2, v, 2);
    v = vsetq_lane_s32(acc->a3, v, 3);
    vstrbq_s32(dst, mf_mve_requant4(v, qb, lshift));
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) /* -O0 keeps r7 as frame pointer */
/* The block loops in assembly share these pieces: the chunk loop (10 instructions per 8 window
 * values of four channels, DLS / LE with lr turns already set) and the requantization of the
 * four sums (mf_mve_requant4 with the block's table at q, stored at d). */
#define MF_GEMM_MVE_CHUNKS                          \
    "1:\n\t"                                        \
    "vldrb.s16 %q[xv], [%[x]], #8\n\t"              \
    "vldrb.s16 %q[wv], [%[w]], #8\n\t"              \
    "vmladava.s16 %[a0], %q[xv], %q[wv]\n\t"        \
    "vldrb.s16 %q[wv], [%[w]], #8\n\t"              \
    "vmladava.s16 %[a1], %q[xv], %q[wv]\n\t"        \
    "vldrb.s16 %q[wv], [%[w]], #8\n\t"              \
    "vmladava.s16 %[a2], %q[xv], %q[wv]\n\t"        \
    "vldrb.s16 %q[wv], [%[w]], #8\n\t"              \
    "vmladava.s16 %[a3], %q[xv], %q[wv]\n\t"        \
    "le lr, 1b\n\t"
#define MF_GEMM_MVE_REQUANT                         \
    "vmov.32 %q[xv][0], %[a0]\n\t"                  \
    "vmov.32 %q[xv][1], %[a1]\n\t"                  \
    "vmov.32 %q[xv][2], %[a2]\n\t"                  \
    "vmov.32 %q[xv][3], %[a3]\n\t"                  \
    "vshl.s32 %q[xv], %q[xv], %q[ls]\n\t"           \
    "vldrw.u32 %q[wv], [%[q], #16]\n\t"             \
    "vrmulh.s32 %q[wv], %q[xv], %q[wv]\n\t"         \
    "vldrw.u32 %q[t], [%[q], #32]\n\t"              \
    "vadd.i32 %q[wv], %q[wv], %q[t]\n\t"            \
    "vshr.s32 %q[xv], %q[xv], #31\n\t"              \
    "vadd.i32 %q[wv], %q[wv], %q[xv]\n\t"           \
    "vldrw.u32 %q[t], [%[q], #48]\n\t"              \
    "vneg.s32 %q[t], %q[t]\n\t"                     \
    "vshl.s32 %q[wv], %q[wv], %q[t]\n\t"            \
    "vmax.s32 %q[wv], %q[wv], %q[lo]\n\t"           \
    "vmin.s32 %q[wv], %q[wv], %q[hi]\n\t"           \
    "vstrb.32 %q[wv], [%[d]], #4\n\t"
#define MF_GEMM_MVE_SEGS 9 /* segments the multi-segment loop takes (a 3x3 window: 3 rows, up to 3 runs each) */

/* A segment resolved for the assembly loop: its first window value and its 8-value chunks. */
typedef struct {
    const int8_t *x;
    int32_t n8;
} mf_mve_run;

/* segs as runs, if every segment is whole 8-value chunks (no 4-value chunk) and they fit. */
MF_INLINE int mf_mve_runs(const mf_seg *segs, int32_t nseg, const int8_t *base, mf_mve_run *runs)
{
    int32_t s;
    if (nseg > MF_GEMM_MVE_SEGS) {
        return 0;
    }
    for (s = 0; s < nseg; s++) {
        const int32_t n = segs[s].n;
        if ((n & 1) != 0 || n < 2) {
            return 0;
        }
        runs[s].x = (const int8_t *)((uintptr_t)base + (uintptr_t)segs[s].start);
        runs[s].n8 = n >> 1;
    }
    return 1;
}

/* Every block over several runs (a 3x3 window: one per row): per block its biases, per run its
 * address and chunk count (LDRD, DLS) and the chunks, then the requantization. */
MF_INLINE void mf_mve_blocks_runs(const mf_mve_run *runs, int32_t nrun, const int8_t *wb, const int32_t *qb,
                                  int32_t blocks, int32_t lshift, int8_t *dst)
{
    const mf_mve_run *end = runs + nrun, *r;
    const int8_t *x;
    const int32x4_t ls = vdupq_n_s32(lshift), lo = vdupq_n_s32(-128), hi = vdupq_n_s32(127);
    int32x4_t xv, wv, t;
    int32_t a0, a1, a2, a3, c = blocks;
    __asm__ volatile("2:\n\t"
                     "ldrd %[a0], %[a1], [%[q]]\n\t"
                     "ldrd %[a2], %[a3], [%[q], #8]\n\t"
                     "mov %[r], %[runs]\n\t"
                     "3:\n\t"
                     "ldrd %[x], lr, [%[r]], #8\n\t"
                     "dls lr, lr\n\t"
                     MF_GEMM_MVE_CHUNKS
                     "cmp %[r], %[end]\n\t"
                     "bne 3b\n\t"
                     MF_GEMM_MVE_REQUANT
                     "adds %[q], %[q], #64\n\t"
                     "subs %[c], %[c], #1\n\t"
                     "bne 2b\n\t"
                     : [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2), [a3] "=&Te"(a3),
                       [x] "=&l"(x), [r] "=&r"(r), [w] "+l"(wb), [q] "+r"(qb), [d] "+l"(dst), [c] "+r"(c),
                       [xv] "=&w"(xv), [wv] "=&w"(wv), [t] "=&w"(t)
                     : [runs] "r"(runs), [end] "r"(end), [ls] "w"(ls), [lo] "w"(lo), [hi] "w"(hi)
                     : "lr", "cc", "memory");
}
#endif

/* mf_fast_blocks on Helium (same contract; see mf_fast.h). One segment (a pointwise conv, a
 * fully-connected row, a gathered window) is decoded once for all blocks. */
MF_INLINE void mf_fast_blocks_mve(const mf_seg *segs, int32_t nseg, const int8_t *base,
                                  const uint32_t *w, const int32_t *qb, int32_t blocks,
                                  int32_t lshift, int8_t *dst)
{
    const int8_t *wb = (const int8_t *)(const void *)w;
    int32_t b, s;
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) /* -O0 keeps r7 as frame pointer */
    mf_mve_run runs[MF_GEMM_MVE_SEGS];
    if (nseg == 1 && segs[0].n >= 2 && (segs[0].n & 1) == 0) {
        /* One segment of 8-value chunks (pointwise conv, fully-connected, gathered window): the
         * whole block loop in assembly, 25 instructions per block beside the chunks' 10. */
        const int8_t *x0 = (const int8_t *)((uintptr_t)base + (uintptr_t)segs[0].start), *x;
        const int32_t n8 = segs[0].n >> 1;
        const int32x4_t ls = vdupq_n_s32(lshift), lo = vdupq_n_s32(-128), hi = vdupq_n_s32(127);
        int32x4_t xv, wv, t;
        int32_t a0, a1, a2, a3, c = blocks;
        __asm__ volatile("2:\n\t"
                         "ldrd %[a0], %[a1], [%[q]]\n\t"
                         "ldrd %[a2], %[a3], [%[q], #8]\n\t"
                         "mov %[x], %[x0]\n\t"
                         "dls lr, %[n8]\n\t"
                         MF_GEMM_MVE_CHUNKS
                         MF_GEMM_MVE_REQUANT
                         "adds %[q], %[q], #64\n\t"
                         "subs %[c], %[c], #1\n\t"
                         "bne 2b\n\t"
                         : [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2), [a3] "=&Te"(a3),
                           [x] "=&l"(x), [w] "+l"(wb), [q] "+r"(qb), [d] "+l"(dst), [c] "+r"(c),
                           [xv] "=&w"(xv), [wv] "=&w"(wv), [t] "=&w"(t)
                         : [x0] "r"(x0), [n8] "r"(n8), [ls] "w"(ls), [lo] "w"(lo), [hi] "w"(hi)
                         : "lr", "cc", "memory");
        return;
    }
    if (nseg > 1 && mf_mve_runs(segs, nseg, base, runs)) {
        mf_mve_blocks_runs(runs, nseg, wb, qb, blocks, lshift, dst);
        return;
    }
#endif
    if (nseg == 1) {
        const int8_t *x = (const int8_t *)((uintptr_t)base + (uintptr_t)segs[0].start);
        const int32_t n = segs[0].n;
        for (b = 0; b < blocks; b++, qb += MF_Q_WORDS, dst += 4) {
            mf_acc4 acc = mf_fast_bias4(qb);
            mf_mve_segment(x, n, &wb, &acc);
            mf_mve_store4(&acc, qb, lshift, dst);
        }
        return;
    }
    for (b = 0; b < blocks; b++, qb += MF_Q_WORDS, dst += 4) {
        mf_acc4 acc = mf_fast_bias4(qb);
        for (s = 0; s < nseg; s++) {
            mf_mve_segment((const int8_t *)((uintptr_t)base + (uintptr_t)segs[s].start), segs[s].n, &wb,
                           &acc);
        }
        mf_mve_store4(&acc, qb, lshift, dst);
    }
}
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#undef MF_GEMM_MVE_CHUNKS /* (MF_GEMM_MVE_REQUANT stays for mf_gemm16.h, which undefines it) */
#endif
#endif

#endif /* MF_GEMM_MVE_H */
