/* microfuse runtime: mf_fast_blocks over the 16-lane weight layout (lower/mve.py), chosen at
 * compile time for Helium cores. Included by mf_dot.h after mf_seg.
 *
 * The layout: per block of four channels the window cut into chunks of 16 values, each chunk
 * [4 channels][16 values]; the segments are the usual ones, every one whole chunks (its MF_SEG_N
 * code a multiple of 4: n >> 2 chunks). The params flag it in lshift (| MF_L16).
 *
 * On Helium a chunk is one load of 16 window values (VLDRB.8) and, per channel, one of its 16
 * weights and one VMLADAVA.S8 (16 MACs summed into the channel's int32 accumulator): 10
 * instructions for 64 MACs with the loop, half the 8-value layout's count (CMSIS-NN's
 * arm_nn_mat_mul_core_4x_s8 does the same per row over an im2col copy; here the window is read
 * in place). The sums are the same int32 values as every other path (the accumulators start at
 * the biases, the products are exact), requantized four lanes at a time like mf_mve_requant4
 * (four VMOV.32 build the vector). At -O0 / MF_NO_ASM_LOOPS the intrinsics, and without MVE
 * (host, Cortex-M0 / M3, unoptimized builds) plain loops give the same values; the DSP assembly
 * builds (Cortex-M4 / M7, optimized) leave the layout out: it is chosen for Helium cores only.
 * Access order: as mf_fast_blocks, a block reads only its unit's window, then stores its four values. */
#ifndef MF_GEMM16_H
#define MF_GEMM16_H

#include "mf_gemm_mve.h" /* MF_GEMM_MVE_REQUANT */

#define MF_L16 64 /* lshift flag: the weights are in the 16-lane layout (lshift itself is 1..32) */

/* acc_c += x . w_c for the four channels of a block over n16 chunks; *wp advances past them. */
MF_INLINE void mf_dot16(const int8_t *x, int32_t n16, const int8_t **wp, mf_acc4 *acc)
{
    const int8_t *w = *wp;
#if MF_MVE
    int32_t a0 = acc->a0, a1 = acc->a1, a2 = acc->a2, a3 = acc->a3;
    for (; n16 > 0; n16--, x += 16, w += 64) {
        const int8x16_t xv = vldrbq_s8(x);
        a0 = vmladavaq_s8(a0, xv, vldrbq_s8(w));
        a1 = vmladavaq_s8(a1, xv, vldrbq_s8(w + 16));
        a2 = vmladavaq_s8(a2, xv, vldrbq_s8(w + 32));
        a3 = vmladavaq_s8(a3, xv, vldrbq_s8(w + 48));
    }
    acc->a0 = a0;
    acc->a1 = a1;
    acc->a2 = a2;
    acc->a3 = a3;
#else
    int32_t *a[4];
    int32_t i, c;
    a[0] = &acc->a0;
    a[1] = &acc->a1;
    a[2] = &acc->a2;
    a[3] = &acc->a3;
    for (; n16 > 0; n16--, x += 16, w += 64) {
        for (c = 0; c < 4; c++) {
            int32_t s = 0;
            for (i = 0; i < 16; i++) {
                s += (int32_t)x[i] * (int32_t)w[16 * c + i];
            }
            *a[c] += s;
        }
    }
#endif
    *wp = w;
}

#if MF_MVE && defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && !defined(MF_NO_ASM_LOOPS)
/* The chunk loop (10 instructions per 16 window values of four channels; DLS / LE with lr
 * turns set); the four sums are requantized by mf_gemm_mve.h's MF_GEMM_MVE_REQUANT (the
 * block's table at q, stored at d). VMLADAVA accumulates into even registers only ("Te"). */
#define MF_G16_CHUNKS                               \
    "1:\n\t"                                        \
    "vldrb.8 %q[xv], [%[x]], #16\n\t"               \
    "vldrb.8 %q[wv], [%[w]], #16\n\t"               \
    "vmladava.s8 %[a0], %q[xv], %q[wv]\n\t"         \
    "vldrb.8 %q[wv], [%[w]], #16\n\t"               \
    "vmladava.s8 %[a1], %q[xv], %q[wv]\n\t"         \
    "vldrb.8 %q[wv], [%[w]], #16\n\t"               \
    "vmladava.s8 %[a2], %q[xv], %q[wv]\n\t"         \
    "vldrb.8 %q[wv], [%[w]], #16\n\t"               \
    "vmladava.s8 %[a3], %q[xv], %q[wv]\n\t"         \
    "le lr, 1b\n\t"
#define MF_G16_OUT                                                                          \
    [a0] "=&Te"(a0), [a1] "=&Te"(a1), [a2] "=&Te"(a2), [a3] "=&Te"(a3), [x] "=&r"(x),       \
    [w] "+r"(w), [q] "+r"(qb), [d] "+r"(dst), [c] "+r"(c), [xv] "=&w"(xv), [wv] "=&w"(wv), \
    [t] "=&w"(t)

/* Every block over one segment at x0 of n16 chunks (a pointwise conv, a gathered window):
 * 21 instructions per block beside the chunks. */
MF_INLINE void mf_g16_blocks1(const int8_t *x0, int32_t n16, const int8_t *w, const int32_t *qb,
                              int32_t blocks, int32_t lshift, int8_t *dst)
{
    const int32x4_t ls = vdupq_n_s32(lshift), lo = vdupq_n_s32(-128), hi = vdupq_n_s32(127);
    const int8_t *x;
    int32x4_t xv, wv, t;
    int32_t a0, a1, a2, a3, c = blocks;
    __asm__ volatile("2:\n\t"
                     "ldrd %[a0], %[a1], [%[q]]\n\t"
                     "ldrd %[a2], %[a3], [%[q], #8]\n\t"
                     "mov %[x], %[x0]\n\t"
                     "dls lr, %[n]\n\t"
                     MF_G16_CHUNKS
                     MF_GEMM_MVE_REQUANT
                     "adds %[q], %[q], #64\n\t"
                     "subs %[c], %[c], #1\n\t"
                     "bne 2b\n\t"
                     : MF_G16_OUT
                     : [x0] "r"(x0), [n] "r"(n16), [ls] "w"(ls), [lo] "w"(lo), [hi] "w"(hi)
                     : "lr", "cc", "memory");
}

/* Every block over several segments (a 3x3 window's rows, or its taps at the border), read
 * straight from the mf_seg list: per segment 6 instructions beside its chunks. */
MF_INLINE void mf_g16_blocks(const mf_seg *segs, int32_t nseg, const int8_t *base, const int8_t *w,
                             const int32_t *qb, int32_t blocks, int32_t lshift, int8_t *dst)
{
    const int32x4_t ls = vdupq_n_s32(lshift), lo = vdupq_n_s32(-128), hi = vdupq_n_s32(127);
    const mf_seg *end = segs + nseg, *r;
    const int8_t *x;
    int32x4_t xv, wv, t;
    int32_t a0, a1, a2, a3, c = blocks;
    __asm__ volatile("2:\n\t"
                     "ldrd %[a0], %[a1], [%[q]]\n\t"
                     "ldrd %[a2], %[a3], [%[q], #8]\n\t"
                     "mov %[r], %[segs]\n\t"
                     "3:\n\t"
                     "ldrd %[x], lr, [%[r]], #8\n\t"
                     "add %[x], %[x], %[base]\n\t"
                     "lsrs lr, lr, #2\n\t"
                     "dls lr, lr\n\t"
                     MF_G16_CHUNKS
                     "cmp %[r], %[end]\n\t"
                     "bne 3b\n\t"
                     MF_GEMM_MVE_REQUANT
                     "adds %[q], %[q], #64\n\t"
                     "subs %[c], %[c], #1\n\t"
                     "bne 2b\n\t"
                     : MF_G16_OUT, [r] "=&r"(r)
                     : [segs] "r"(segs), [end] "r"(end), [base] "r"(base), [ls] "w"(ls), [lo] "w"(lo),
                       [hi] "w"(hi)
                     : "lr", "cc", "memory");
}
#undef MF_G16_CHUNKS
#undef MF_G16_OUT
#define MF_G16_ASM 1
#else
#define MF_G16_ASM 0
#endif
#undef MF_GEMM_MVE_REQUANT /* (defined by mf_gemm_mve.h for this file too) */

/* mf_fast_blocks (same contract) over the 16-lane layout; lshift without the flag. */
MF_INLINE void mf_fast_blocks16(const mf_seg *segs, int32_t nseg, const int8_t *base, const uint32_t *w,
                                const int32_t *qb, int32_t blocks, int32_t lshift, int8_t *dst)
{
    const int8_t *wb = (const int8_t *)(const void *)w;
    int32_t b, s;
#if MF_G16_ASM
    if (nseg == 1) {
        mf_g16_blocks1((const int8_t *)((uintptr_t)base + (uintptr_t)segs[0].start), segs[0].n >> 2, wb, qb,
                       blocks, lshift, dst);
    } else {
        mf_g16_blocks(segs, nseg, base, wb, qb, blocks, lshift, dst);
    }
    return;
#endif
    for (b = 0; b < blocks; b++, qb += MF_Q_WORDS, dst += 4) {
        mf_acc4 acc = mf_fast_bias4(qb);
        for (s = 0; s < nseg; s++) {
            mf_dot16((const int8_t *)((uintptr_t)base + (uintptr_t)segs[s].start), segs[s].n >> 2, &wb, &acc);
        }
        mf_fast_requant4(&acc, qb, lshift);
        dst[0] = (int8_t)acc.a0;
        dst[1] = (int8_t)acc.a1;
        dst[2] = (int8_t)acc.a2;
        dst[3] = (int8_t)acc.a3;
    }
}

#endif /* MF_GEMM16_H */
