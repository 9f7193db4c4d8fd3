/* microfuse runtime: the Helium (MVE) path of mf_dw_pixel (mf_dwconv2d_s8_dsp_body.h).
 *
 * Sixteen channels (four groups) per pass over the taps: per tap one load of the tap's address,
 * then per group of four channels a widening load (VLDRB.S32) of the input and one of the
 * weights, a VMUL and a VADD into the group's int32x4 accumulator (MVE has no vector-by-vector
 * integer multiply-accumulate): 19 instructions for 16 MACs with the loop (DLS / LE). The remaining groups
 * go two, then one, at a time.
 * The accumulators start at the biases and hold the same int32 sums as the scalar paths; they are
 * requantized four lanes at a time by mf_mve_requant4 (bit-identical to the scalar shortcut, see
 * mf_fast_mve.h) and stored with a narrowing VSTRB.32.
 *
 * Access order: as mf_dw_pixel's, the groups of a pixel in increasing order, each group's stores
 * after every read of its taps (a pass reads the window for its 16 channels, then stores them). */
#ifndef MF_DWCONV2D_S8_MVE_H
#define MF_DWCONV2D_S8_MVE_H

#include "mf_fast.h"

#if MF_MVE
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) /* gcc's operand constraints ("Te", "l", "w") */
/* The taps of 1, 2 or 4 groups (gcc's own schedule of this loop spills: the widening loads take
 * their address in r0-r7): per tap its address, then per group a load of its four input channels
 * (at #xoff) and of its four weights (post-incremented), VMUL, VADD. */
#define MF_DWM_HEAD                          \
    "dls lr, %[t]\n\t"                        \
    "1:\n\t"                                 \
    "ldr %[x], [%[tp]], #4\n\t"              \
    "add %[x], %[x], %[off]\n\t"
#define MF_DWM_GROUP(xoff, w, c)             \
    "vldrb.s32 %q[v0], [%[x], #" xoff "]\n\t" \
    "vldrb.s32 %q[v1], [%[" w "]], #4\n\t"   \
    "vmul.i32 %q[v0], %q[v0], %q[v1]\n\t"     \
    "vadd.i32 %q[" c "], %q[" c "], %q[v0]\n\t"
#define MF_DWM_TAIL                          \
    "le lr, 1b\n\t"
#define MF_DWM_OPERANDS \
    [v0] "=&w"(v0), [v1] "=&w"(v1), [x] "=&l"(x), [tp] "+r"(tp)
#endif

/* one pixel of mf_dw_pixels on Helium (the same contract). */
MF_INLINE void mf_dw_pixel_mve(const intptr_t *tap, int32_t taps, const int8_t *base, int32_t g0,
                               const uint32_t *w, const int32_t *qb, int32_t groups, int32_t lshift,
                               int8_t *dst)
{
    const int8_t *wb = (const int8_t *)(const void *)w;
    const int32_t wg = 4 * taps; /* weight bytes per group */
    const uintptr_t off0 = (uintptr_t)base + 4u * (uint32_t)g0;
    int32_t g = 0;
    while (g < groups) {
        /* a pass over the taps for n = 4, 2 or 1 groups */
        const int32_t n = groups - g >= 4 ? 4 : groups - g >= 2 ? 2 : 1;
        const uintptr_t off = off0 + 4u * (uint32_t)g;
        const int32_t *q = qb + g * MF_Q_WORDS;
        const int8_t *w0 = wb + g * wg, *w1 = w0 + wg, *w2 = w1 + wg, *w3 = w2 + wg;
        int32x4_t c0 = vldrwq_s32(q), c1 = c0, c2 = c0, c3 = c0;
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
        const intptr_t *tp = tap;
        const int8_t *x;
        int32x4_t v0, v1;
        const int32_t t = taps; /* >= 1: a low-overhead loop (DLS / LE) of t turns */
        if (n == 4) {
            c1 = vldrwq_s32(q + MF_Q_WORDS);
            c2 = vldrwq_s32(q + 2 * MF_Q_WORDS);
            c3 = vldrwq_s32(q + 3 * MF_Q_WORDS);
            __asm__ volatile(MF_DWM_HEAD MF_DWM_GROUP("0", "w0", "c0") MF_DWM_GROUP("4", "w1", "c1")
                             MF_DWM_GROUP("8", "w2", "c2") MF_DWM_GROUP("12", "w3", "c3") MF_DWM_TAIL
                             : MF_DWM_OPERANDS, [c0] "+w"(c0), [c1] "+w"(c1), [c2] "+w"(c2),
                               [c3] "+w"(c3), [w0] "+l"(w0), [w1] "+l"(w1), [w2] "+l"(w2), [w3] "+l"(w3)
                             : [off] "r"(off), [t] "r"(t)
                             : "lr", "memory");
        } else if (n == 2) {
            c1 = vldrwq_s32(q + MF_Q_WORDS);
            __asm__ volatile(MF_DWM_HEAD MF_DWM_GROUP("0", "w0", "c0") MF_DWM_GROUP("4", "w1", "c1")
                             MF_DWM_TAIL
                             : MF_DWM_OPERANDS, [c0] "+w"(c0), [c1] "+w"(c1), [w0] "+l"(w0), [w1] "+l"(w1)
                             : [off] "r"(off), [t] "r"(t)
                             : "lr", "memory");
        } else {
            __asm__ volatile(MF_DWM_HEAD MF_DWM_GROUP("0", "w0", "c0") MF_DWM_TAIL
                             : MF_DWM_OPERANDS, [c0] "+w"(c0), [w0] "+l"(w0)
                             : [off] "r"(off), [t] "r"(t)
                             : "lr", "memory");
        }
#else
        int32_t t;
        c1 = n > 1 ? vldrwq_s32(q + MF_Q_WORDS) : c0;
        c2 = n > 2 ? vldrwq_s32(q + 2 * MF_Q_WORDS) : c0;
        c3 = n > 2 ? vldrwq_s32(q + 3 * MF_Q_WORDS) : c0;
        for (t = 0; t < taps; t++) {
            const int8_t *x = (const int8_t *)((uintptr_t)tap[t] + off);
            c0 = vaddq_s32(c0, vmulq_s32(vldrbq_s32(x), vldrbq_s32(w0 + 4 * t)));
            c1 = n > 1 ? vaddq_s32(c1, vmulq_s32(vldrbq_s32(x + 4), vldrbq_s32(w1 + 4 * t))) : c1;
            c2 = n > 2 ? vaddq_s32(c2, vmulq_s32(vldrbq_s32(x + 8), vldrbq_s32(w2 + 4 * t))) : c2;
            c3 = n > 2 ? vaddq_s32(c3, vmulq_s32(vldrbq_s32(x + 12), vldrbq_s32(w3 + 4 * t))) : c3;
        }
#endif
        vstrbq_s32(dst + 4 * g, mf_mve_requant4(c0, q, lshift));
        if (n > 1) {
            vstrbq_s32(dst + 4 * g + 4, mf_mve_requant4(c1, q + MF_Q_WORDS, lshift));
        }
        if (n > 2) {
            vstrbq_s32(dst + 4 * g + 8, mf_mve_requant4(c2, q + 2 * MF_Q_WORDS, lshift));
            vstrbq_s32(dst + 4 * g + 12, mf_mve_requant4(c3, q + 3 * MF_Q_WORDS, lshift));
        }
        g += n;
    }
}
/* mf_dw_pixel_mve over the DSP layout (lower/fast.py dw_block_words: a build lowered without the
 * Helium retargeting): per group its shifted biases, then per tap the int16 lanes (w0, w2),
 * (w1, w3), gathered back into channel order; group by group, the shift already folded. */
MF_INLINE void mf_dw_pixel_mve16(const intptr_t *tap, int32_t taps, const int8_t *base, int32_t g0,
                                 const uint32_t *w, const int32_t *qb, int32_t groups, int8_t *dst)
{
    static const uint32_t order[4] = {0, 4, 2, 6}; /* byte offsets of w0 .. w3 in a tap's words */
    const uint32x4_t lanes = vldrwq_u32(order);
    int32_t g, t;
    for (g = 0; g < groups; g++) {
        const uint32_t *wb = w + g * (4 + 2 * taps);
        const uintptr_t off = (uintptr_t)base + 4u * (uint32_t)(g0 + g);
        int32x4_t c = vldrwq_s32((const int32_t *)(const void *)wb);
        for (t = 0; t < taps; t++) {
            const int8_t *x = (const int8_t *)((uintptr_t)tap[t] + off);
            const int16_t *wt = (const int16_t *)(const void *)(wb + 4 + 2 * t);
            c = vaddq_s32(c, vmulq_s32(vldrbq_s32(x), vldrhq_gather_offset_s32(wt, lanes)));
        }
        vstrbq_s32(dst + 4 * g, mf_mve_requant4(c, qb + g * MF_Q_WORDS, 0));
    }
}
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#undef MF_DWM_HEAD
#undef MF_DWM_GROUP
#undef MF_DWM_TAIL
#undef MF_DWM_OPERANDS
#endif
#endif

#endif /* MF_DWCONV2D_S8_MVE_H */
