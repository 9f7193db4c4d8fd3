/* microfuse runtime: four neighbouring output pixels of a 3x3 stride-1 depthwise convolution at
 * once (mf_dwconv2d_s8_dsp_body.h, stored straight into an output that does not overlap the
 * input), sharing the loaded input columns.
 *
 * The four windows of one output row span six input columns; per channel group and per half of
 * it (the even channels (c0, c2), then the odd ones (c1, c3)) each of the 3 x 6 input words is
 * loaded and split by SXTB16 once and meets the weights of every window holding it (one to
 * three SMLABB / SMLATT pairs): 18 words and 72 MACs per half instead of 36 words. Eight
 * accumulators (4 pixels x 2 channels), a row's three weight words, the input word, the group
 * offset and the row cursor fill the 14 registers; the tap addresses (zrow outside the image)
 * and the output addresses live in the asm's own frame (mf_dw_quad_frame, copied in). The
 * requantization is mf_dw_pairs': one load of each channel's constants for four pixels.
 *
 * Access order: every pixel's store of a group follows the reads of all four windows' words of
 * that group, and the caller takes this path only when the output and the input are disjoint. */
#ifndef MF_DW_QUAD_H
#define MF_DW_QUAD_H

#include <string.h>

#include "mf_fast.h"

#define MF_DW_QUAD_BUF 128 /* channels of a quad stored through the caller's buffer */

typedef struct {
    intptr_t tap[18];      /* [row][column]: the column's channel 0, or zrow outside the image */
    intptr_t dst[16];      /* [pixel][channel of the group]: its output byte for group 0 */
    const int32_t *qb;     /* the channel table (MF_Q_WORDS per group) */
    int32_t lshift;
    int32_t end;           /* 4 groups */
    const uint32_t *w;     /* weights [group][9 taps][4 channels] (the cursor of a row) */
} mf_dw_quad_frame;

#if MF_ASM_LOOPS && !MF_MVE
MF_HELPER void mf_dw_quad(const mf_dw_quad_frame *f)
{
    int32_t a0 = 0, a1 = 0, a2 = 19, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
    int32_t w0 = 0, w1 = 0, w2 = 0, x = 0, g4 = (int32_t)(uintptr_t)f, tc = 0;
#define MF_DWX_MAC(b, t, w)                    \
    "smlabb %[" #b "], %[x], %[" #w "], %[" #b "]\n\t" \
    "smlatt %[" #t "], %[x], %[" #w "], %[" #t "]\n\t"
#define MF_DWX_COL(j, ext, macs)               \
    "ldr %[x], [%[tc], #(4 * " #j ")]\n\t"     \
    "ldr %[x], [%[x], %[g4]]\n\t"              \
    "sxtb16 %[x], %[x]" ext "\n\t" macs
    /* one half of a group: bias words bo, bt; channels cb (a0..a3) and cb + 2 (a4..a7) */
#define MF_DWX_RQ(c, p0, p1, p2, p3)                           \
    "ldr %[x], [sp, #136]\n\t"                                 \
    "add %[x], %[x], %[g4], lsl #4\n\t"                        \
    "ldr %[w0], [%[x], #(16 + 4 * " #c ")]\n\t"                \
    "ldr %[w1], [%[x], #(32 + 4 * " #c ")]\n\t"                \
    "ldr %[w2], [%[x], #(48 + 4 * " #c ")]\n\t"                \
    MF_DWX_RQ1(p0) MF_DWX_RQ1(p1) MF_DWX_RQ1(p2) MF_DWX_RQ1(p3)
#define MF_DWX_RQ1(p)                                          \
    "add %[x], %[w1], %[" #p "], asr #31\n\t"                  \
    "smmlar %[" #p "], %[" #p "], %[w0], %[x]\n\t"             \
    "asr %[" #p "], %[" #p "], %[w2]\n\t"                      \
    "ssat %[" #p "], #8, %[" #p "]\n\t"
#define MF_DWX_ST(p, i, c)                                     \
    "ldr %[x], [sp, #(72 + 4 * (4 * " #i " + " #c "))]\n\t"     \
    "strb %[" #p "], [%[x], %[g4]]\n\t"
#define MF_DWX_HALF(cb, ct, ext, lbl)                          \
    "ldr %[x], [sp, #136]\n\t"                                 \
    "add %[x], %[x], %[g4], lsl #4\n\t"                        \
    "ldr %[a0], [%[x], #(4 * " #cb ")]\n\t"                    \
    "ldr %[a4], [%[x], #(4 * " #ct ")]\n\t"                    \
    "mov %[a1], %[a0]\n\t"                                     \
    "mov %[a2], %[a0]\n\t"                                     \
    "mov %[a3], %[a0]\n\t"                                     \
    "mov %[a5], %[a4]\n\t"                                     \
    "mov %[a6], %[a4]\n\t"                                     \
    "mov %[a7], %[a4]\n\t"                                     \
    "mov %[tc], sp\n\t"                                        \
    lbl ":\n\t"                                                \
    "ldr %[x], [sp, #148]\n\t"                                 \
    "ldr %[w0], [%[x]], #4\n\t"                                \
    "ldr %[w1], [%[x]], #4\n\t"                                \
    "ldr %[w2], [%[x]], #4\n\t"                                \
    "str %[x], [sp, #148]\n\t"                                 \
    "sxtb16 %[w0], %[w0]" ext "\n\t"                           \
    "sxtb16 %[w1], %[w1]" ext "\n\t"                           \
    "sxtb16 %[w2], %[w2]" ext "\n\t"                           \
    MF_DWX_COL(0, ext, MF_DWX_MAC(a0, a4, w0))                 \
    MF_DWX_COL(1, ext, MF_DWX_MAC(a0, a4, w1) MF_DWX_MAC(a1, a5, w0)) \
    MF_DWX_COL(2, ext, MF_DWX_MAC(a0, a4, w2) MF_DWX_MAC(a1, a5, w1) MF_DWX_MAC(a2, a6, w0)) \
    MF_DWX_COL(3, ext, MF_DWX_MAC(a1, a5, w2) MF_DWX_MAC(a2, a6, w1) MF_DWX_MAC(a3, a7, w0)) \
    MF_DWX_COL(4, ext, MF_DWX_MAC(a2, a6, w2) MF_DWX_MAC(a3, a7, w1)) \
    MF_DWX_COL(5, ext, MF_DWX_MAC(a3, a7, w2))                 \
    "add %[tc], %[tc], #24\n\t"                                \
    "add %[x], sp, #72\n\t"                                    \
    "cmp %[tc], %[x]\n\t"                                      \
    "bne " lbl "b\n\t"                                         \
    "ldr %[x], [sp, #140]\n\t"                                 \
    "lsl %[a0], %[a0], %[x]\n\t"                               \
    "lsl %[a1], %[a1], %[x]\n\t"                               \
    "lsl %[a2], %[a2], %[x]\n\t"                               \
    "lsl %[a3], %[a3], %[x]\n\t"                               \
    "lsl %[a4], %[a4], %[x]\n\t"                               \
    "lsl %[a5], %[a5], %[x]\n\t"                               \
    "lsl %[a6], %[a6], %[x]\n\t"                               \
    "lsl %[a7], %[a7], %[x]\n\t"                               \
    MF_DWX_RQ(cb, a0, a1, a2, a3) MF_DWX_RQ(ct, a4, a5, a6, a7) \
    MF_DWX_ST(a0, 0, cb) MF_DWX_ST(a1, 1, cb) MF_DWX_ST(a2, 2, cb) MF_DWX_ST(a3, 3, cb) \
    MF_DWX_ST(a4, 0, ct) MF_DWX_ST(a5, 1, ct) MF_DWX_ST(a6, 2, ct) MF_DWX_ST(a7, 3, ct)
    __asm__ volatile(
        "sub sp, sp, #152\n\t"
        "mov %[x], sp\n\t"
        "1:\n\t" /* the frame in */
        "ldrd %[a0], %[a1], [%[g4]], #8\n\t"
        "strd %[a0], %[a1], [%[x]], #8\n\t"
        "subs %[a2], %[a2], #1\n\t"
        "bne 1b\n\t"
        "movs %[g4], #0\n\t"
        "20:\n\t" /* group: g4 its channels' offset, [148] its weights */
        MF_DWX_HALF(0, 2, "", "21")
        "ldr %[x], [sp, #148]\n\t" /* the odd half: the group's weights again */
        "sub %[x], %[x], #36\n\t"
        "str %[x], [sp, #148]\n\t"
        MF_DWX_HALF(1, 3, ", ror #8", "22")
        "adds %[g4], %[g4], #4\n\t"
        "ldr %[x], [sp, #144]\n\t"
        "cmp %[g4], %[x]\n\t"
        "bne 20b\n\t"
        "add sp, sp, #152\n\t"
        : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [a4] "+r"(a4), [a5] "+r"(a5),
          [a6] "+r"(a6), [a7] "+r"(a7), [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [x] "+r"(x),
          [g4] "+r"(g4), [tc] "+r"(tc)
        :
        : "cc", "memory");
#undef MF_DWX_MAC
#undef MF_DWX_COL
#undef MF_DWX_RQ
#undef MF_DWX_RQ1
#undef MF_DWX_ST
#undef MF_DWX_HALF
}
#define MF_DW_QUAD 1
#else
#define MF_DW_QUAD 0
#endif

#endif /* MF_DW_QUAD_H */
