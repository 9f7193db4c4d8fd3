/* microfuse runtime: the blocked dot product of the fast convolution and fully-connected kernels
 * (mf_fast.h): the blocks of four channels of one output pixel (or row), each four dot products
 * over the unit's window, requantized (mf_requant.h) and saturated to int8.
 *
 * Access order: a block reads only its unit's window, then stores its four values. */
#ifndef MF_DOT_H
#define MF_DOT_H

#include "mf_requant.h"

#if MF_ASM_LOOPS
/* Assembly of mf_fast_blocks: 8 values of 4 channels (32 MACs) from x and w: 5 loads, 20 SXTB16,
 * 16 SMLAD; 4 values: 5 loads, 10 SXTB16, 8 SMLAD (operands a0-a3, x, w, x0-x3, w0, w1, t). */
#define MF_DOT8_CH(a)                                  \
    "ldrd %[w0], %[w1], [%[w]], #8\n\t"                \
    "sxtb16 %[t], %[w0], ror #8\n\t"                   \
    "sxtb16 %[w0], %[w0]\n\t"                          \
    "smlad %[" #a "], %[x0], %[w0], %[" #a "]\n\t"     \
    "smlad %[" #a "], %[x1], %[t], %[" #a "]\n\t"      \
    "sxtb16 %[t], %[w1], ror #8\n\t"                   \
    "sxtb16 %[w1], %[w1]\n\t"                          \
    "smlad %[" #a "], %[x2], %[w1], %[" #a "]\n\t"     \
    "smlad %[" #a "], %[x3], %[t], %[" #a "]\n\t"
#define MF_DOT4_CH(a)                                  \
    "ldr %[w0], [%[w]], #4\n\t"                        \
    "sxtb16 %[t], %[w0], ror #8\n\t"                   \
    "sxtb16 %[w0], %[w0]\n\t"                          \
    "smlad %[" #a "], %[x0], %[w0], %[" #a "]\n\t"     \
    "smlad %[" #a "], %[x1], %[t], %[" #a "]\n\t"
#define MF_DOT4                               \
    "ldr %[x0], [%[x]], #4\n\t"              \
    "sxtb16 %[x1], %[x0], ror #8\n\t"         \
    "sxtb16 %[x0], %[x0]\n\t"                 \
    MF_DOT4_CH(a0) MF_DOT4_CH(a1) MF_DOT4_CH(a2) MF_DOT4_CH(a3)
#define MF_DOT8                               \
    "ldrd %[x0], %[x2], [%[x]], #8\n\t"       \
    "sxtb16 %[x1], %[x0], ror #8\n\t"         \
    "sxtb16 %[x0], %[x0]\n\t"                 \
    "sxtb16 %[x3], %[x2], ror #8\n\t"         \
    "sxtb16 %[x2], %[x2]\n\t"                 \
    MF_DOT8_CH(a0) MF_DOT8_CH(a1) MF_DOT8_CH(a2) MF_DOT8_CH(a3)
#endif

/* acc_c += x . w_c for four channels c over n4 (0 or 1) chunks of 4 then n8 chunks of 8 int8
 * values (the portable path of mf_fast_blocks); the weights are interleaved per chunk
 * ([4 channels][chunk]) and *wp advances past them. */
MF_INLINE void mf_dot4(const int8_t *x, const uint32_t **wp, int32_t n8, int32_t n4, mf_acc4 *acc)
{
    const uint32_t *w = *wp;
    int32_t a0 = acc->a0, a1 = acc->a1, a2 = acc->a2, a3 = acc->a3;
    for (; n4 > 0; n4--, x += 4, w += 4) {
        const uint32_t xa = mf_load32(x);
        const uint32_t x0 = mf_sxtb16(xa), x1 = mf_sxtb16_ror8(xa);
        a0 = mf_smlad(x1, mf_sxtb16_ror8(w[0]), mf_smlad(x0, mf_sxtb16(w[0]), a0));
        a1 = mf_smlad(x1, mf_sxtb16_ror8(w[1]), mf_smlad(x0, mf_sxtb16(w[1]), a1));
        a2 = mf_smlad(x1, mf_sxtb16_ror8(w[2]), mf_smlad(x0, mf_sxtb16(w[2]), a2));
        a3 = mf_smlad(x1, mf_sxtb16_ror8(w[3]), mf_smlad(x0, mf_sxtb16(w[3]), a3));
    }
    for (; n8 > 0; n8--, x += 8, w += 8) {
        const uint32_t xa = mf_load32(x), xb = mf_load32(x + 4);
        const uint32_t x0 = mf_sxtb16(xa), x1 = mf_sxtb16_ror8(xa);
        const uint32_t x2 = mf_sxtb16(xb), x3 = mf_sxtb16_ror8(xb);
        a0 = mf_smlad(x3, mf_sxtb16_ror8(w[1]), mf_smlad(x2, mf_sxtb16(w[1]),
             mf_smlad(x1, mf_sxtb16_ror8(w[0]), mf_smlad(x0, mf_sxtb16(w[0]), a0))));
        a1 = mf_smlad(x3, mf_sxtb16_ror8(w[3]), mf_smlad(x2, mf_sxtb16(w[3]),
             mf_smlad(x1, mf_sxtb16_ror8(w[2]), mf_smlad(x0, mf_sxtb16(w[2]), a1))));
        a2 = mf_smlad(x3, mf_sxtb16_ror8(w[5]), mf_smlad(x2, mf_sxtb16(w[5]),
             mf_smlad(x1, mf_sxtb16_ror8(w[4]), mf_smlad(x0, mf_sxtb16(w[4]), a2))));
        a3 = mf_smlad(x3, mf_sxtb16_ror8(w[7]), mf_smlad(x2, mf_sxtb16(w[7]),
             mf_smlad(x1, mf_sxtb16_ror8(w[6]), mf_smlad(x0, mf_sxtb16(w[6]), a3))));
    }
    acc->a0 = a0;
    acc->a1 = a1;
    acc->a2 = a2;
    acc->a3 = a3;
    *wp = w;
}

/* One run of a window: where its first value is (4-byte aligned; relative to a base address or,
 * with base 0, absolute) and its length: MF_SEG_N(chunks of 8 values, a chunk of 4 first?). */
typedef struct {
    intptr_t start;
    int32_t n;
} mf_seg;
#define MF_SEG_N(n8, n4) ((n8) * 2 + (n4))

#include "mf_gemm_mve.h"
#include "mf_gemm16.h"

/* The `blocks` blocks of four channels of one output pixel (or row): per block the dot products
 * of the segments (each starting at base + start) with the block's weights (consecutive from
 * w), requantized with table block qb (consecutive) and saturated to int8, stored at
 * dst[0 .. 4 blocks). Every segment has at least one chunk; blocks >= 1. The weights of a
 * segment: its 4-value chunk, then its 8-value chunks, each [4 channels][chunk]. */
MF_HELPER void mf_fast_blocks(const mf_seg *segs, int32_t nseg, const int8_t *base, const uint32_t *w,
                              const int32_t *qb, int32_t blocks, int32_t lshift, int8_t *dst)
{
#if MF_MVE || !MF_ASM_LOOPS /* (the DSP assembly builds, M4 / M7, never get the layout) */
    if (lshift & MF_L16) { /* the 16-lane layout (lower/mve.py) */
        mf_fast_blocks16(segs, nseg, base, w, qb, blocks, lshift & (MF_L16 - 1), dst);
        return;
    }
#endif
#if MF_MVE
    mf_fast_blocks_mve(segs, nseg, base, w, qb, blocks, lshift, dst);
#elif MF_ASM_LOOPS
    /* All in registers but the loop state, kept in a frame below the stack pointer:
     * [0] segs [4] nseg [8] qb [12] dst [16] the table's end [20] lshift [24] segment cursor
     * (one segment: its address) [28] segments left (its code) [32] base. Per block, beside the
     * MACs: 4 instructions, 5 per chunk dispatch, 8 more per segment when there are several,
     * 28 to requantize and 10 to store and loop. */
    int32_t a0, a1, a2, a3;
    const int8_t *x = (const int8_t *)(const void *)segs;
    int32_t n = nseg;
    uint32_t x0 = (uint32_t)(uintptr_t)qb, x1 = (uint32_t)(uintptr_t)dst;
    uint32_t x2 = (uint32_t)blocks, x3 = (uint32_t)lshift, w0 = (uint32_t)(uintptr_t)base, w1, t;
#define MF_BLK_RQ2(a, b, off)                                  \
    "ldrd %[x0], %[x1], [%[t], #" #off "]\n\t"                 \
    "ldrd %[x2], %[x3], [%[t], #(" #off " + 16)]\n\t"          \
    "lsl %[" #a "], %[" #a "], %[n]\n\t"                       \
    "lsl %[" #b "], %[" #b "], %[n]\n\t"                       \
    "smmlar %[x2], %[" #a "], %[x0], %[x2]\n\t"                \
    "smmlar %[x3], %[" #b "], %[x1], %[x3]\n\t"                \
    "add %[x2], %[x2], %[" #a "], asr #31\n\t"                 \
    "add %[x3], %[x3], %[" #b "], asr #31\n\t"                 \
    "ldrd %[x0], %[x1], [%[t], #(" #off " + 32)]\n\t"          \
    "asr %[x2], %[x2], %[x0]\n\t"                              \
    "asr %[x3], %[x3], %[x1]\n\t"                              \
    "ssat %[" #a "], #8, %[x2]\n\t"                            \
    "ssat %[" #b "], #8, %[x3]\n\t"
/* The 8- and 4-value chunks of one segment at x (n: its MF_SEG_N code); labels from `l`. */
#define MF_BLK_CHUNKS(l1, l2, l3, l4)                                                          \
    "lsrs %[n], %[n], #1\n\t" /* n: 8-value chunks; carry: a 4-value chunk first */          \
    "bcc " l3 "f\n\t" MF_DOT4                                                                  \
    l3 ":\n\t"                                                                                 \
    "beq " l4 "f\n\t" /* (flags of the lsrs) no 8-value chunk */                              \
    "lsrs %[n], %[n], #1\n\t" /* turns of two chunks; carry: an odd one, done first */        \
    "bcc " l1 "f\n\t"                                                                          \
    "adds %[n], %[n], #1\n\t"                                                                  \
    "b " l2 "f\n\t"                                                                            \
    l1 ":\n\t" MF_DOT8                                                                         \
    l2 ":\n\t" MF_DOT8                                                                         \
    "subs %[n], %[n], #1\n\t"                                                                  \
    "bne " l1 "b\n\t"                                                                          \
    l4 ":\n\t"
/* Requantize the block's four accumulators, store them, next block (loop back to `head`). */
#define MF_BLK_TAIL(head)                                                                      \
    "ldr %[t], [sp, #8]\n\t"                                                                   \
    "ldr %[n], [sp, #20]\n\t"                                                                  \
    MF_BLK_RQ2(a0, a1, 16) MF_BLK_RQ2(a2, a3, 24)                                              \
    "ldr %[x], [sp, #12]\n\t"                                                                  \
    "strb %[a0], [%[x]], #1\n\t"                                                               \
    "strb %[a1], [%[x]], #1\n\t"                                                               \
    "strb %[a2], [%[x]], #1\n\t"                                                               \
    "strb %[a3], [%[x]], #1\n\t"                                                               \
    "str %[x], [sp, #12]\n\t"                                                                  \
    "adds %[t], %[t], #64\n\t"                                                                 \
    "str %[t], [sp, #8]\n\t"                                                                   \
    "ldr %[x], [sp, #16]\n\t"                                                                  \
    "cmp %[t], %[x]\n\t"                                                                       \
    "bne " head "b\n\t"
    __asm__ volatile(
        "sub sp, sp, #40\n\t"
        "str %[x], [sp, #0]\n\t"
        "str %[n], [sp, #4]\n\t"
        "str %[x0], [sp, #8]\n\t"
        "str %[x1], [sp, #12]\n\t"
        "add %[x2], %[x0], %[x2], lsl #6\n\t" /* the table's end */
        "str %[x2], [sp, #16]\n\t"
        "str %[x3], [sp, #20]\n\t"
        "str %[w0], [sp, #32]\n\t"
        "cmp %[n], #1\n\t"
        "bne 10f\n\t"
        "ldrd %[x], %[n], [%[x]]\n\t" /* one segment: its address and code stay in the frame */
        "add %[x], %[x], %[w0]\n\t"
        "strd %[x], %[n], [sp, #24]\n\t"
        "20:\n\t" /* block, one segment */
        "ldr %[t], [sp, #8]\n\t"
        "ldrd %[a0], %[a1], [%[t]]\n\t"
        "ldrd %[a2], %[a3], [%[t], #8]\n\t"
        "ldrd %[x], %[n], [sp, #24]\n\t"
        MF_BLK_CHUNKS("21", "22", "23", "24")
        MF_BLK_TAIL("20")
        "b 19f\n\t"
        "10:\n\t" /* block */
        "ldr %[t], [sp, #8]\n\t"
        "ldrd %[a0], %[a1], [%[t]]\n\t"
        "ldrd %[a2], %[a3], [%[t], #8]\n\t"
        "ldrd %[x], %[n], [sp, #0]\n\t"
        "strd %[x], %[n], [sp, #24]\n\t"
        "11:\n\t" /* segment */
        "ldr %[t], [sp, #24]\n\t"
        "ldrd %[x], %[n], [%[t]], #8\n\t"
        "str %[t], [sp, #24]\n\t"
        "ldr %[t], [sp, #32]\n\t"
        "add %[x], %[x], %[t]\n\t"
        MF_BLK_CHUNKS("12", "13", "14", "15")
        "ldr %[t], [sp, #28]\n\t"
        "subs %[t], %[t], #1\n\t"
        "str %[t], [sp, #28]\n\t"
        "bne 11b\n\t"
        MF_BLK_TAIL("10")
        "19:\n\t"
        "add sp, sp, #40\n\t"
        : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [x] "+r"(x), [w] "+r"(w),
          [n] "+r"(n), [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [x3] "+r"(x3), [w0] "+r"(w0),
          [w1] "=&r"(w1), [t] "=&r"(t)
        :
        : "cc", "memory");
#undef MF_BLK_CHUNKS
#undef MF_BLK_TAIL
#undef MF_BLK_RQ2
#else
    int32_t b, s;
    for (b = 0; b < blocks; b++, qb += MF_Q_WORDS, dst += 4) {
        mf_acc4 acc = mf_fast_bias4(qb);
        for (s = 0; s < nseg; s++) {
            mf_dot4((const int8_t *)((uintptr_t)base + (uintptr_t)segs[s].start), &w, segs[s].n >> 1,
                    segs[s].n & 1, &acc);
        }
        mf_fast_requant4(&acc, qb, lshift);
        dst[0] = (int8_t)acc.a0;
        dst[1] = (int8_t)acc.a1;
        dst[2] = (int8_t)acc.a2;
        dst[3] = (int8_t)acc.a3;
    }
#endif
}

#endif /* MF_DOT_H */
