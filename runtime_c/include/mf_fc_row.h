/* microfuse runtime: one fully-connected row whose depth is a multiple of 8, stored straight into
 * the output (mf_fc_s8_dsp8: no epilogue, no clamp): the blocks of four units of mf_fast_blocks
 * with a single segment, its 8-value chunks four to a loop turn.
 *
 * On the assembly path (MF_ASM_LOOPS, not Helium) each block enters the four-chunk loop part way
 * (at the chunk that leaves whole turns: the entry address is computed once per call), so a
 * chunk costs its MACs and a quarter of the loop's branch; the block's four bytes store as one
 * word. Elsewhere it is mf_fast_blocks itself. Same arithmetic and access order (a block reads
 * the row, then stores its four values) either way. */
#ifndef MF_FC_ROW_H
#define MF_FC_ROW_H

#include "mf_fast.h"
#include "mf_dot.h"

/* dst[0 .. 4 blocks) = the requantized dot products of x[0 .. 8 n8) with the blocks' weights
 * (mf_fast_blocks' layout: per block n8 chunks of [4 units][8 values]), n8 >= 1. */
MF_HELPER void mf_fc_row(const int8_t *x, int32_t n8, const uint32_t *w, const int32_t *qb,
                         int32_t blocks, int32_t lshift, int8_t *dst)
{
#if MF_ASM_LOOPS && !MF_MVE
    /* Frame below the stack pointer: [0] x [4] loop turns [8] qb cursor [12] dst [16] the
     * table's end [20] lshift [24] the loop entry (Thumb address). */
    int32_t a0, a1, a2, a3;
    const int8_t *xp = x;
    int32_t n = n8;
    uint32_t x0 = (uint32_t)(uintptr_t)qb, x1 = (uint32_t)(uintptr_t)dst;
    uint32_t x2 = (uint32_t)blocks, x3 = (uint32_t)lshift, w0, w1, t;
#define MF_FCR_RQ2(a, b, off)                                  \
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
    __asm__ volatile(
        "sub sp, sp, #32\n\t"
        "str %[x], [sp, #0]\n\t"
        "str %[x0], [sp, #8]\n\t"
        "str %[x1], [sp, #12]\n\t"
        "add %[x2], %[x0], %[x2], lsl #6\n\t" /* the table's end */
        "str %[x2], [sp, #16]\n\t"
        "str %[x3], [sp, #20]\n\t"
        /* turns = ceil(n8 / 4); entry = the first chunk's code + ((-n8) mod 4) chunks' code */
        "adds %[x0], %[n], #3\n\t"
        "lsrs %[x0], %[x0], #2\n\t"
        "str %[x0], [sp, #4]\n\t"
        "rsbs %[x1], %[n], #0\n\t"
        "and %[x1], %[x1], #3\n\t"
        "adr.w %[t], 41f\n\t"
        "adr.w %[x2], 42f\n\t"
        "subs %[x2], %[x2], %[t]\n\t"
        "mla %[t], %[x1], %[x2], %[t]\n\t"
        "orr %[t], %[t], #1\n\t"
        "str %[t], [sp, #24]\n\t"
        "20:\n\t" /* block */
        "ldr %[t], [sp, #8]\n\t"
        "ldrd %[a0], %[a1], [%[t]]\n\t"
        "ldrd %[a2], %[a3], [%[t], #8]\n\t"
        "ldrd %[x], %[n], [sp, #0]\n\t"
        "ldr %[t], [sp, #24]\n\t"
        "bx %[t]\n\t"
        "41:\n\t" MF_DOT8
        "42:\n\t" MF_DOT8 MF_DOT8 MF_DOT8
        "subs %[n], %[n], #1\n\t"
        "bne 41b\n\t"
        "ldr %[t], [sp, #8]\n\t"
        "ldr %[n], [sp, #20]\n\t"
        MF_FCR_RQ2(a0, a1, 16) MF_FCR_RQ2(a2, a3, 24)
        "pkhbt %[a0], %[a0], %[a2], lsl #16\n\t"
        "pkhbt %[a1], %[a1], %[a3], lsl #16\n\t"
        "and %[a0], %[a0], #0xff00ff\n\t"
        "and %[a1], %[a1], #0xff00ff\n\t"
        "orr %[a0], %[a0], %[a1], lsl #8\n\t"
        "ldr %[x], [sp, #12]\n\t"
        "str %[a0], [%[x]], #4\n\t"
        "str %[x], [sp, #12]\n\t"
        "adds %[t], %[t], #64\n\t"
        "str %[t], [sp, #8]\n\t"
        "ldr %[x], [sp, #16]\n\t"
        "cmp %[t], %[x]\n\t"
        "bne 20b\n\t"
        "add sp, sp, #32\n\t"
        : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [x] "+r"(xp), [w] "+r"(w),
          [n] "+r"(n), [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [x3] "+r"(x3), [w0] "=&r"(w0),
          [w1] "=&r"(w1), [t] "=&r"(t)
        :
        : "cc", "memory");
#undef MF_FCR_RQ2
#else
    mf_seg seg;
    seg.start = (intptr_t)x;
    seg.n = MF_SEG_N(n8, 0);
    mf_fast_blocks(&seg, 1, NULL, w, qb, blocks, lshift, dst);
#endif
}

#endif /* MF_FC_ROW_H */
