/* microfuse runtime: mf_dw_pixel over the Helium depthwise layout (lower/mve.py), chosen at
 * compile time for Helium cores when the channels are a multiple of 8.
 *
 * The layout: channels in pairs of groups (8 channels), per pair the taps' weights [tap][8
 * channels]; the channel table of a pair is ordered even channels (block 2k: channels 0 2 4 6),
 * then odd ones (block 2k+1: 1 3 5 7). The params flag it in lshift (| MF_L16).
 *
 * On Helium a tap of 8 channels is a widening load of the input and one of the weights
 * (VLDRB.S16), and VMULLB / VMULLT (the even and odd lanes' int32 products) added into the
 * pair's two int32x4 accumulators: 6 instructions for 8 MACs, against 8 with 4-lane loads and
 * VMUL; 16 channels per pass over the taps (15 instructions a tap with the loop). The sums are the
 * same int32 values as every other path; each accumulator is requantized by mf_mve_requant4 with
 * its block, and VMOVNT puts the odd channels between the even ones for one 8-byte store.
 * Without MVE plain loops give the same values (the portable builds; the DSP assembly builds,
 * Cortex-M4 / M7 optimized, leave the layout out: it is chosen for Helium cores only).
 * Access order: as mf_dw_pixel's, a pass reads the window for its channels, then stores them;
 * passes in increasing channel order. */
#ifndef MF_DWCONV2D_S8_MVE8_H
#define MF_DWCONV2D_S8_MVE8_H

#include "mf_fast.h"

#ifndef MF_L16
#define MF_L16 64 /* lshift flag (mf_gemm16.h) */
#endif

#if MF_MVE
/* The 8 channels of a pair from its accumulators (even, odd lanes) and blocks q, q + MF_Q_WORDS. */
MF_INLINE void mf_dw8_store(int32x4_t ce, int32x4_t co, const int32_t *q, int32_t lshift, int8_t *dst)
{
    const int32x4_t re = mf_mve_requant4(ce, q, lshift), ro = mf_mve_requant4(co, q + MF_Q_WORDS, lshift);
    vstrbq_s16(dst, vmovntq_s32(vreinterpretq_s16_s32(re), ro));
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__) && !defined(MF_NO_ASM_LOOPS)
/* One pair of a tap at #xoff of x, weights post-incremented from w, into accumulators e, o. */
#define MF_DW8_PAIR(xoff, w, e, o)                   \
    "vldrb.s16 %q[v0], [%[x], #" xoff "]\n\t"        \
    "vldrb.s16 %q[v1], [%[" w "]], #8\n\t"           \
    "vmullb.s16 %q[v2], %q[v0], %q[v1]\n\t"          \
    "vadd.i32 %q[" e "], %q[" e "], %q[v2]\n\t"      \
    "vmullt.s16 %q[v2], %q[v0], %q[v1]\n\t"          \
    "vadd.i32 %q[" o "], %q[" o "], %q[v2]\n\t"
#define MF_DW8_HEAD                                  \
    "dls lr, %[t]\n\t"                               \
    "1:\n\t"                                         \
    "ldr %[x], [%[tp]], #4\n\t"                      \
    "add %[x], %[x], %[off]\n\t"
#define MF_DW8_OPERANDS [v0] "=&w"(v0), [v1] "=&w"(v1), [v2] "=&w"(v2), [x] "=&l"(x), [tp] "+r"(tp)
#define MF_DW8_ASM 1
#else
#define MF_DW8_ASM 0
#endif

/* n (1 or 2) pairs of one pixel over the taps: pair j's channels at tap[t] + off + 8 j, its
 * weights at w + 8 taps j, its blocks at q + 2 j MF_Q_WORDS, its outputs at dst + 8 j. */
MF_INLINE void mf_dw8_pass(const intptr_t *tap, int32_t taps, uintptr_t off, const int8_t *w, const int32_t *q,
                           int32_t n, int32_t lshift, int8_t *dst)
{
    const int8_t *w0 = w, *w1 = w + 8 * taps;
    int32x4_t e0 = vldrwq_s32(q), o0 = vldrwq_s32(q + MF_Q_WORDS), e1 = e0, o1 = o0;
#if MF_DW8_ASM
    const intptr_t *tp = tap;
    const int8_t *x;
    int32x4_t v0, v1, v2;
    const int32_t t = taps; /* >= 1: a low-overhead loop (DLS / LE) of t turns */
    if (n == 2) {
        e1 = vldrwq_s32(q + 2 * MF_Q_WORDS);
        o1 = vldrwq_s32(q + 3 * MF_Q_WORDS);
        __asm__ volatile(MF_DW8_HEAD MF_DW8_PAIR("0", "w0", "e0", "o0") MF_DW8_PAIR("8", "w1", "e1", "o1")
                         "le lr, 1b\n\t"
                         : MF_DW8_OPERANDS, [e0] "+w"(e0), [o0] "+w"(o0), [e1] "+w"(e1), [o1] "+w"(o1),
                           [w0] "+l"(w0), [w1] "+l"(w1)
                         : [off] "r"(off), [t] "r"(t)
                         : "lr", "memory");
    } else {
        __asm__ volatile(MF_DW8_HEAD MF_DW8_PAIR("0", "w0", "e0", "o0") "le lr, 1b\n\t"
                         : MF_DW8_OPERANDS, [e0] "+w"(e0), [o0] "+w"(o0), [w0] "+l"(w0)
                         : [off] "r"(off), [t] "r"(t)
                         : "lr", "memory");
    }
#else
    int32_t k;
    if (n == 2) {
        e1 = vldrwq_s32(q + 2 * MF_Q_WORDS);
        o1 = vldrwq_s32(q + 3 * MF_Q_WORDS);
    }
    for (k = 0; k < taps; k++) {
        const int8_t *x = (const int8_t *)((uintptr_t)tap[k] + off);
        const int16x8_t xa = vldrbq_s16(x), wa = vldrbq_s16(w0 + 8 * k);
        e0 = vaddq_s32(e0, vmullbq_int_s16(xa, wa));
        o0 = vaddq_s32(o0, vmulltq_int_s16(xa, wa));
        if (n == 2) {
            const int16x8_t xb = vldrbq_s16(x + 8), wb = vldrbq_s16(w1 + 8 * k);
            e1 = vaddq_s32(e1, vmullbq_int_s16(xb, wb));
            o1 = vaddq_s32(o1, vmulltq_int_s16(xb, wb));
        }
    }
#endif
    mf_dw8_store(e0, o0, q, lshift, dst);
    if (n == 2) {
        mf_dw8_store(e1, o1, q + 2 * MF_Q_WORDS, lshift, dst + 8);
    }
}
#if MF_DW8_ASM
#undef MF_DW8_PAIR
#undef MF_DW8_HEAD
#undef MF_DW8_OPERANDS
#endif
#endif

/* mf_dw_pixel (same contract) over the layout: groups and g0 even; lshift without the flag. */
MF_INLINE void mf_dw_pixel8(const intptr_t *tap, int32_t taps, const int8_t *base, int32_t g0,
                            const uint32_t *w, const int32_t *qb, int32_t groups, int32_t lshift, int8_t *dst)
{
    const int8_t *wb = (const int8_t *)(const void *)w;
    const uintptr_t off0 = (uintptr_t)base + 4u * (uint32_t)g0;
    const int32_t pairs = groups / 2;
    int32_t k;
#if MF_MVE
    for (k = 0; k < pairs; k += 2) {
        const int32_t n = pairs - k >= 2 ? 2 : 1;
        mf_dw8_pass(tap, taps, off0 + 8u * (uint32_t)k, wb + 8 * taps * k, qb + 2 * k * MF_Q_WORDS, n, lshift,
                    dst + 8 * k);
    }
#else
    int32_t j, t;
    for (k = 0; k < pairs; k++, wb += 8 * taps, qb += 2 * MF_Q_WORDS, dst += 8) {
        mf_acc4 acc[2];
        int32_t *a[2][4];
        acc[0] = mf_fast_bias4(qb);
        acc[1] = mf_fast_bias4(qb + MF_Q_WORDS);
        for (j = 0; j < 2; j++) {
            a[j][0] = &acc[j].a0;
            a[j][1] = &acc[j].a1;
            a[j][2] = &acc[j].a2;
            a[j][3] = &acc[j].a3;
        }
        for (t = 0; t < taps; t++) {
            const int8_t *x = (const int8_t *)((uintptr_t)tap[t] + off0 + 8u * (uint32_t)k);
            for (j = 0; j < 8; j++) {
                *a[j & 1][j >> 1] += (int32_t)x[j] * (int32_t)wb[8 * t + j];
            }
        }
        mf_fast_requant4(&acc[0], qb, lshift);
        mf_fast_requant4(&acc[1], qb + MF_Q_WORDS, lshift);
        for (j = 0; j < 8; j++) {
            dst[j] = (int8_t)*a[j & 1][j >> 1];
        }
    }
#endif
}

#endif /* MF_DWCONV2D_S8_MVE8_H */
