/* microfuse runtime: a run of interior pixels of a 3x3 depthwise convolution two at a time
 * (mf_dwconv2d_s8_dsp_body.h, stored straight into the output), each tap's weights loaded once
 * for both pixels of a pair.
 *
 * Per channel group of a pair: both pixels' accumulators start at the group's biases (the
 * weights' block, MF_W16: shifted left by lshift like the weights, so no shift follows); per
 * tap its two int16 lane words (even and odd channels) meet pixel A's input word and pixel B's
 * (step bytes further), SXTB16 split, eight SMLABB / SMLATT; then both are requantized with one load of
 * each channel's constants, the sign step folded into SMMLAR's addend (r + (a < 0 ? -1 : 0) ==
 * SMMLAR(a, m, round - 1)), and stored as one word each. Eight accumulators, the weight pair,
 * the input word and its odd half, the group offset and the weight cursor fill the 14 registers,
 * so the tap offsets live in the asm's own stack frame, at offsets fixed by the unrolled taps.
 * Three group loops, one per kind of pair (the caller's `kind`; a build compiles those its calls
 * need, mf_dwconv2d_s8_dsp_body.h MF_DW_*): B the right neighbour of A in a 3x3 window (a row's
 * second and third taps take A's input word from B's of the tap before: 4 input words a row),
 * B two columns right of A (stride 2: a row's third tap goes first, B's word before A's, so that
 * its first tap takes B's word from A's third: 5 words a row), any other pair (6 words a row).
 * The group loop goes by a load into pc of its address, which the call sets once. A run's next
 * pair moves its frame words on by steps set up once; a stride-2 run to a row's right border
 * (MF_DW_EDGES) patches the frame at border events (the last pair's third column, a window row
 * outside the image: the zero point's row), and may walk a block of rows in one call.
 *
 * Access order: that of the pixels one after the other (the planner's pixel-window contract):
 * the first pixel of a pair stores each group as it goes, which the contract allows (its output
 * overwrites no input of a later pixel's window, the second's included); the second pixel's
 * words wait in a buffer (the caller's stage) until both windows are read, as its output may
 * overwrite the first pixel's window. Without the assembly (-O0, the host, Helium) the pairs are
 * mf_dw_pixels' single pixels. */
#ifndef MF_DW_PAIRS_H
#define MF_DW_PAIRS_H

#include "mf_fast.h"
/* (included by mf_dwconv2d_s8_dsp_body.h after mf_dw_pixels, its path without the assembly) */

/* `pairs` pairs of pixels of a 3x3 window, all groups (at most MF_STAGE_MAX / 4: the second
 * pixel's words wait in `held`, 4 groups bytes). A run of interior pixels: off_b == off, 9
 * offsets from a pixel's first tap, pixel i at base + i step storing to dst + i dst_step. Any
 * two pixels one after the other: pairs 1, base NULL, off the first's tap addresses (as
 * mf_dw_pixels' border pixels), the second's at off_b + step (its addresses and step 0, or the
 * window's offsets and its first tap's address: no list to build), storing to dst + dst_step.
 * zr (a run to a row's right border, MF_DW_EDGES builds; else 0): the input zero point's row,
 * which the last pair's second pixel reads for its window's third column (stride 2, padding 0
 * on the left and 1 on the right: the column past the row's end). block (such a run only,
 * else NULL and zr 0): {zv, rows, row_step, dst_row_step}: zv 24 r + 4 for a window row r above
 * or below the image, which every pixel reads at zr, else 0; `rows` such runs (zv 0 when more
 * than one), each row_step bytes of input and dst_row_step bytes of output after the one before
 * (a block of a call's rows in one call, the frame built once). */
MF_HELPER void mf_dw_pairs(const intptr_t *off, const intptr_t *off_b, const int8_t *base, int32_t pairs,
                           intptr_t step,
                           const uint32_t *w, const int32_t *qb, int32_t groups, int32_t lshift,
                           int8_t *dst, int32_t dst_step, uint32_t *held, int32_t kind, intptr_t zr,
                           const int32_t *block)
{
#if MF_ASM_LOOPS && !MF_MVE
    /* The frame: [0, 72) the taps of A and B ((off[t], off[t] + step) at 8 t); per pair: [76] qb
     * less 16 times its first group offset (the table block of the group at offset g4: [76] +
     * 16 g4) [80] A's dst and [84] B's dst (held, or A's + dst_step) less the first group offset
     * [88] the last group end; their steps from a pair to the next: [100] 2 step (the end's;
     * [76]'s -16 times that) [104] 2 dst_step - 2 step (A's) [92] B's (held: -2 step) [72] 2 step
     * - 4 groups (the first group offset's from the last group end); [96] pairs left [108] w - 4
     * [112] the pair's dst (held only) [116] 2 dst_step [120] 4 groups [124] dst_step [128] held
     * (NULL: B stores straight out) [132] w while it is the requantization's scratch [136] the
     * pair's group loop (MF_DWQ_DISPATCH) [140] zr
     * [144] the pairs left at the next border event [148] zv [152] rows left [156] row_step [160]
     * dst_row_step [164] the row's first group offset [168] its dst [172] qb [176] pairs a row
     * ([140] and up only in MF_DW_EDGES builds, MF_DWQ_FRAME). */
    int32_t a0 = (int32_t)(uintptr_t)off, a1 = (int32_t)step, a2 = pairs, a3 = (int32_t)(uintptr_t)qb;
    int32_t a4 = 4 * groups, a5 = kind, a6 = (int32_t)(uintptr_t)dst, a7 = dst_step;
    int32_t g4 = (int32_t)(uintptr_t)base, x = (int32_t)(uintptr_t)held, r = (int32_t)(uintptr_t)off_b;
    int32_t wl = (int32_t)(uintptr_t)block, wo = (int32_t)zr;
    (void)lshift; /* folded into the weights' block (MF_W16) */
    /* pixel A's word of tap t (its address in the frame), split and multiplied with the tap's
     * weights (wl, wo) into A's accumulators */
#define MF_DWQ_A(t)                                   \
    "ldr %[r], [sp, #(8 * " #t ")]\n\t"                \
    "ldr %[x], [%[r], %[g4]]\n\t"                      \
    "sxtb16 %[r], %[x], ror #8\n\t"                    \
    "sxtb16 %[x], %[x]\n\t"                            \
    "smlabb %[a0], %[x], %[wl], %[a0]\n\t"             \
    "smlatt %[a2], %[x], %[wl], %[a2]\n\t"             \
    "smlabb %[a1], %[r], %[wo], %[a1]\n\t"             \
    "smlatt %[a3], %[r], %[wo], %[a3]\n\t"
    /* pixel B's word of tap t (its address step bytes on, in the frame), split and multiplied with
     * the tap's weights (wl, wo) into B's accumulators */
#define MF_DWQ_B(t)                                   \
    "ldr %[r], [sp, #(8 * " #t " + 4)]\n\t"            \
    "ldr %[x], [%[r], %[g4]]\n\t"                      \
    "sxtb16 %[r], %[x], ror #8\n\t"                    \
    "sxtb16 %[x], %[x]\n\t"                            \
    "smlabb %[a4], %[x], %[wl], %[a4]\n\t"             \
    "smlatt %[a6], %[x], %[wl], %[a6]\n\t"             \
    "smlabb %[a5], %[r], %[wo], %[a5]\n\t"             \
    "smlatt %[a7], %[r], %[wo], %[a7]\n\t"
#define MF_DWQ_TAP(t, wb) MF_DWQ_TAP_(t, wb, a0, a1, a2, a3)
    /* (b0 - b3: A's addends, a4 - a7 for its first tap: the biases wait there) */
#define MF_DWQ_TAP_(t, wb, b0, b1, b2, b3) MF_DWQ_TAPK(t, t, wb, b0, b1, b2, b3)
    /* (k: the tap's weights' index from w, t less 11 once a writeback moved w 88 bytes on) */
#define MF_DWQ_TAPK(t, k, wb, b0, b1, b2, b3)         \
    "ldr %[r], [sp, #(8 * " #t ")]\n\t"                \
    "ldr %[x], [%[r], %[g4]]\n\t"                      \
    "ldr %[wl], [%[w], #(20 + 8 * (" #k "))]\n\t"      \
    "ldr %[wo], [%[w], #(24 + 8 * (" #k "))]" wb "\n\t" \
    "sxtb16 %[r], %[x], ror #8\n\t"                    \
    "sxtb16 %[x], %[x]\n\t"                            \
    "smlabb %[a0], %[x], %[wl], %[" #b0 "]\n\t"        \
    "smlatt %[a2], %[x], %[wl], %[" #b2 "]\n\t"        \
    "smlabb %[a1], %[r], %[wo], %[" #b1 "]\n\t"        \
    "smlatt %[a3], %[r], %[wo], %[" #b3 "]\n\t"        \
    MF_DWQ_B(t)
    /* the same where A's input word is B's of the tap before (B the pixel to the right of A, a
     * 3x3 window's next column in its row: x and r hold its halves already) */
#define MF_DWQ_TAPB(t, wb)                            \
    "ldr %[wl], [%[w], #(20 + 8 * " #t ")]\n\t"        \
    "ldr %[wo], [%[w], #(24 + 8 * " #t ")]" wb "\n\t"  \
    "smlabb %[a0], %[x], %[wl], %[a0]\n\t"             \
    "smlatt %[a2], %[x], %[wl], %[a2]\n\t"             \
    "smlabb %[a1], %[r], %[wo], %[a1]\n\t"             \
    "smlatt %[a3], %[r], %[wo], %[a3]\n\t"             \
    MF_DWQ_B(t)
    /* B two columns right of A (stride 2): B's word first, then A's, so that x and r end on A's
     * halves, which are B's two taps on (MF_DWQ_TAPR) */
#define MF_DWQ_TAPBA(t, wb) MF_DWQ_TAPBA_(t, wb, a4, a5, a6, a7)
    /* (b4 - b7: B's addends, a0 - a3 for the first tap: the biases wait there) */
#define MF_DWQ_TAPBA_(t, wb, b4, b5, b6, b7)          \
    "ldr %[r], [sp, #(8 * " #t " + 4)]\n\t"            \
    "ldr %[x], [%[r], %[g4]]\n\t"                      \
    "ldr %[wl], [%[w], #(20 + 8 * " #t ")]\n\t"        \
    "ldr %[wo], [%[w], #(24 + 8 * " #t ")]" wb "\n\t"  \
    "sxtb16 %[r], %[x], ror #8\n\t"                    \
    "sxtb16 %[x], %[x]\n\t"                            \
    "smlabb %[a4], %[x], %[wl], %[" #b4 "]\n\t"        \
    "smlatt %[a6], %[x], %[wl], %[" #b6 "]\n\t"        \
    "smlabb %[a5], %[r], %[wo], %[" #b5 "]\n\t"        \
    "smlatt %[a7], %[r], %[wo], %[" #b7 "]\n\t"        \
    MF_DWQ_A(t)
    /* B's word is A's of tap t + 2 (x and r hold its halves): B's products, then A's word */
#define MF_DWQ_TAPR(t, k)                             \
    "ldr %[wl], [%[w], #(20 + 8 * (" #k "))]\n\t"      \
    "ldr %[wo], [%[w], #(24 + 8 * (" #k "))]\n\t"      \
    "smlabb %[a4], %[x], %[wl], %[a4]\n\t"             \
    "smlatt %[a6], %[x], %[wl], %[a6]\n\t"             \
    "smlabb %[a5], %[r], %[wo], %[a5]\n\t"             \
    "smlatt %[a7], %[r], %[wo], %[a7]\n\t"             \
    MF_DWQ_A(t)
    /* channel c of A (p) and B (q): x holds the table block; with MF_DW_SIGN w (saved at [132])
     * is the sign step's scratch, without it the addend goes in as it is
     * (mf_dwconv2d_s8_dsp_body.h: a negative p saturates to -128 with or without the step) */
#if MF_DW_SIGN
#define MF_DWQ_RQ(c, p, q)                                     \
    "ldr %[wl], [%[x], #(16 + 4 * " #c ")]\n\t"                \
    "ldr %[wo], [%[x], #(32 + 4 * " #c ")]\n\t"                \
    "ldr %[r], [%[x], #(48 + 4 * " #c ")]\n\t"                 \
    "add %[w], %[wo], %[" #p "], asr #31\n\t"                  \
    "smmlar %[" #p "], %[" #p "], %[wl], %[w]\n\t"             \
    "asr %[" #p "], %[" #p "], %[r]\n\t"                       \
    "ssat %[" #p "], #8, %[" #p "]\n\t"                        \
    "add %[w], %[wo], %[" #q "], asr #31\n\t"                  \
    "smmlar %[" #q "], %[" #q "], %[wl], %[w]\n\t"             \
    "asr %[" #q "], %[" #q "], %[r]\n\t"                       \
    "ssat %[" #q "], #8, %[" #q "]\n\t"
#define MF_DWQ_SAVE_W "str %[w], [sp, #132]\n\t" /* behind a load: 1 cycle */
#define MF_DWQ_LOAD_W "ldr %[w], [sp, #132]\n\t"
#else
#define MF_DWQ_RQ(c, p, q)                                     \
    "ldr %[wl], [%[x], #(16 + 4 * " #c ")]\n\t"                \
    "ldr %[wo], [%[x], #(32 + 4 * " #c ")]\n\t"                \
    "ldr %[r], [%[x], #(48 + 4 * " #c ")]\n\t"                 \
    "smmlar %[" #p "], %[" #p "], %[wl], %[wo]\n\t"            \
    "asr %[" #p "], %[" #p "], %[r]\n\t"                       \
    "ssat %[" #p "], #8, %[" #p "]\n\t"                        \
    "smmlar %[" #q "], %[" #q "], %[wl], %[wo]\n\t"            \
    "asr %[" #q "], %[" #q "], %[r]\n\t"                       \
    "ssat %[" #q "], #8, %[" #q "]\n\t"
#define MF_DWQ_SAVE_W ""
#define MF_DWQ_LOAD_W ""
#endif
    /* the four saturated values into p0's bytes (its bits 8 and up, sign copies, overwritten) */
#define MF_DWQ_PACK(p0, p1, p2, p3)                          \
    "bfi %[" #p0 "], %[" #p1 "], #8, #8\n\t"                \
    "bfi %[" #p0 "], %[" #p2 "], #16, #8\n\t"               \
    "bfi %[" #p0 "], %[" #p3 "], #24, #8\n\t"
    /* a pair's group loop (label n), its taps `taps`, the biases into b0 - b3 (the registers
     * of the pixel whose products come second in the first tap: their addends there) */
#define MF_DWQ_GROUP(n, b0, b1, b2, b3, taps) \
        #n ":\n\t" /* group: w 4 bytes before its block of weights, which starts with the biases   \
                     * (shifted); four single loads back to back (1 cycle each behind the first,   \
                     * the first tap's offset load too) */                                         \
        "ldr %[" #b0 "], [%[w], #4]\n\t"                                                           \
        "ldr %[" #b1 "], [%[w], #8]\n\t"                                                           \
        "ldr %[" #b2 "], [%[w], #12]\n\t"                                                          \
        "ldr %[" #b3 "], [%[w], #16]\n\t"                                                          \
        taps /* (the last one moves w onto 4 bytes before the next group's block) */               \
        "ldr %[x], [sp, #76]\n\t"                                                                  \
        MF_DWQ_SAVE_W                                                                              \
        "add %[x], %[x], %[g4], lsl #4\n\t" /* the group's table block */                          \
        MF_DWQ_RQ(0, a0, a4) MF_DWQ_RQ(1, a1, a5) MF_DWQ_RQ(2, a2, a6) MF_DWQ_RQ(3, a3, a7)        \
        MF_DWQ_PACK(a0, a1, a2, a3) MF_DWQ_PACK(a4, a5, a6, a7)                                    \
        "ldr %[wl], [sp, #80]\n\t" /* the outputs' addresses less the group offset, w and the      \
                                      * group end: four loads in a run, the first store behind */  \
        "ldr %[wo], [sp, #84]\n\t"                                                                 \
        MF_DWQ_LOAD_W                                                                              \
        "ldr %[r], [sp, #88]\n\t"                                                                  \
        "str %[a0], [%[wl], %[g4]]\n\t"                                                            \
        "str %[a4], [%[wo], %[g4]]\n\t"                                                            \
        "adds %[g4], %[g4], #4\n\t"                                                                \
        "cmp %[g4], %[r]\n\t"                                                                      \
        "bne " #n "b\n\t"
#define MF_DWQ_TAPS_ANY                                                                      \
    MF_DWQ_TAP_(0, "", a4, a5, a6, a7) MF_DWQ_TAP(1, "") MF_DWQ_TAP(2, "") MF_DWQ_TAP(3, "") MF_DWQ_TAP(4, "")  \
    MF_DWQ_TAP(5, "") MF_DWQ_TAP(6, "") MF_DWQ_TAP(7, "") MF_DWQ_TAP(8, "!")
    /* B the pixel to the right of A: a row's first tap loads A's word, its others take B's */
#define MF_DWQ_TAPS_ADJ                                                                        \
    MF_DWQ_TAP_(0, "", a4, a5, a6, a7) MF_DWQ_TAPB(1, "") MF_DWQ_TAPB(2, "") MF_DWQ_TAP(3, "") MF_DWQ_TAPB(4, "") \
    MF_DWQ_TAPB(5, "") MF_DWQ_TAP(6, "") MF_DWQ_TAPB(7, "") MF_DWQ_TAPB(8, "!")
    /* B two columns right of A: a row's third tap (B first), its first (B's word A's of the
     * third), its second; the last row's third tap moves w onto 4 bytes before the next group's
     * block (its load's writeback, no add: the row's other two taps' weights from there) */
#define MF_DWQ_TAPS_STEP2                                                                             \
    MF_DWQ_TAPBA_(2, "", a0, a1, a2, a3) MF_DWQ_TAPR(0, 0) MF_DWQ_TAP(1, "") MF_DWQ_TAPBA(5, "")         \
    MF_DWQ_TAPR(3, 3) MF_DWQ_TAP(4, "") MF_DWQ_TAPBA(8, "!") MF_DWQ_TAPR(6, 6 - 11)                     \
    MF_DWQ_TAPK(7, 7 - 11, "", a0, a1, a2, a3)
    /* a run to the right border (zr, MF_DW_EDGES builds): an event when the pairs left reach [144]
     * (0: none), after a pair's end or before the first: with zv, window row zv / 24 (the frame's
     * words 24 r to 24 r + 24) at the zero point's row (zr less the pair's first group offset)
     * and the next event the next pair; before the last pair, B's third column (taps 2, 5, 8:
     * the frame's words 8 t + 4) there too. Without zv the one event is the last pair's. */
#if MF_DW_EDGES
#define MF_DWQ_EDGE_SAVE                                                                            \
        "cmp %[wl], #0\n\t" /* block NULL: one row, no border (zr 0), no event */                   \
        "bne 3f\n\t"                                                                                \
        "movs %[wl], #1\n\t"                                                                        \
        "movs %[wo], #0\n\t"                                                                        \
        "str %[wl], [sp, #152]\n\t"                                                                 \
        "str %[wo], [sp, #144]\n\t"                                                                 \
        "b 4f\n\t"                                                                                  \
        "3:\n\t" /* else zr, and block's words */                                                   \
        "str %[wo], [sp, #140]\n\t"                                                                 \
        "str %[g4], [sp, #164]\n\t"                                                                 \
        "str %[a6], [sp, #168]\n\t"                                                                 \
        "str %[a3], [sp, #172]\n\t"                                                                 \
        "str %[a2], [sp, #176]\n\t"                                                                 \
        "ldr %[wo], [%[wl], #4]\n\t"                                                                \
        "str %[wo], [sp, #152]\n\t"                                                                 \
        "ldr %[wo], [%[wl], #8]\n\t"                                                                \
        "str %[wo], [sp, #156]\n\t"                                                                 \
        "ldr %[wo], [%[wl], #12]\n\t"                                                               \
        "str %[wo], [sp, #160]\n\t"                                                                 \
        "ldr %[wl], [%[wl]]\n\t"                                                                    \
        "str %[wl], [sp, #148]\n\t"                                                                 \
        "cmp %[wl], #0\n\t" /* the first event: zv every pair's, else the last one's (zr) */        \
        "ite ne\n\t"                                                                                \
        "movne %[wl], %[a2]\n\t"                                                                    \
        "moveq %[wl], #1\n\t"                                                                       \
        "str %[wl], [sp, #144]\n\t"                                                                 \
        "4:\n\t"
#define MF_DWQ_EDGE_ENTRY                                                                           \
        "ldr %[a0], [sp, #96]\n\t"                                                                  \
        "ldr %[wo], [sp, #144]\n\t"                                                                 \
        "cmp %[a0], %[wo]\n\t"                                                                      \
        "beq 60f\n\t"
#define MF_DWQ_EDGE_LOAD "ldr %[wo], [sp, #144]\n\t"
#define MF_DWQ_EDGE_LAST                                                                            \
        "cmp %[a0], %[wo]\n\t"                                                                      \
        "bne 10b\n\t"                                                                               \
        "60:\n\t"                                                                                   \
        "ldr %[wl], [sp, #148]\n\t"                                                                 \
        "ldr %[wo], [sp, #140]\n\t"                                                                 \
        "cmp %[wl], #0\n\t"                                                                         \
        "sub %[wo], %[wo], %[g4]\n\t"                                                               \
        "beq 61f\n\t"                                                                               \
        "add %[wl], sp, %[wl]\n\t"                                                                  \
        "strd %[wo], %[wo], [%[wl], #-4]\n\t"                                                       \
        "strd %[wo], %[wo], [%[wl], #4]\n\t"                                                        \
        "strd %[wo], %[wo], [%[wl], #12]\n\t"                                                       \
        "sub %[wl], %[a0], #1\n\t"                                                                  \
        "str %[wl], [sp, #144]\n\t"                                                                 \
        "61:\n\t"                                                                                   \
        "cmp %[a0], #1\n\t"                                                                         \
        "bne 10b\n\t"                                                                               \
        "str %[wo], [sp, #20]\n\t"                                                                  \
        "str %[wo], [sp, #44]\n\t"                                                                  \
        "str %[wo], [sp, #68]\n\t"
    /* a row's end: the next row of the block (its first pair's state as the setup's, B's third
     * column back from zr's patch, the pairs a row), or out */
#define MF_DWQ_ROW_END "beq 80f\n\t"
#define MF_DWQ_NEXT_ROW                                                                             \
        "80:\n\t"                                                                                   \
        "ldr %[a0], [sp, #152]\n\t"                                                                 \
        "subs %[a0], %[a0], #1\n\t"                                                                 \
        "beq 90f\n\t"                                                                               \
        "str %[a0], [sp, #152]\n\t"                                                                 \
        "ldr %[g4], [sp, #164]\n\t"                                                                 \
        "ldr %[a1], [sp, #156]\n\t"                                                                 \
        "ldr %[a6], [sp, #168]\n\t"                                                                 \
        "ldr %[a2], [sp, #160]\n\t"                                                                 \
        "ldr %[a3], [sp, #172]\n\t"                                                                 \
        "ldr %[a4], [sp, #120]\n\t"                                                                 \
        "ldr %[a7], [sp, #124]\n\t"                                                                 \
        "ldr %[x], [sp, #128]\n\t"                                                                  \
        "add %[g4], %[g4], %[a1]\n\t"                                                               \
        "add %[a6], %[a6], %[a2]\n\t"                                                               \
        "str %[g4], [sp, #164]\n\t"                                                                 \
        "str %[a6], [sp, #168]\n\t"                                                                 \
        "str %[a6], [sp, #112]\n\t"                                                                 \
        "sub %[a3], %[a3], %[g4], lsl #4\n\t"                                                       \
        "add %[a4], %[g4], %[a4]\n\t"                                                               \
        "str %[a3], [sp, #76]\n\t"                                                                  \
        "str %[a4], [sp, #88]\n\t"                                                                  \
        "cmp %[x], #0\n\t"                                                                          \
        "it eq\n\t"                                                                                 \
        "addeq %[x], %[a6], %[a7]\n\t"                                                              \
        "sub %[x], %[x], %[g4]\n\t"                                                                 \
        "sub %[a6], %[a6], %[g4]\n\t"                                                               \
        "strd %[a6], %[x], [sp, #80]\n\t"                                                           \
        "ldr %[a1], [sp, #100]\n\t"                                                                 \
        "ldr %[a5], [sp, #16]\n\t"                                                                  \
        "ldr %[a6], [sp, #40]\n\t"                                                                  \
        "ldr %[a7], [sp, #64]\n\t"                                                                  \
        "ldr %[a0], [sp, #176]\n\t"                                                                 \
        "ldr %[w], [sp, #108]\n\t"                                                                  \
        "ldr %[wo], [sp, #144]\n\t"                                                                 \
        "add %[a5], %[a5], %[a1], asr #1\n\t"                                                       \
        "add %[a6], %[a6], %[a1], asr #1\n\t"                                                       \
        "add %[a7], %[a7], %[a1], asr #1\n\t"                                                       \
        "str %[a5], [sp, #20]\n\t"                                                                  \
        "str %[a6], [sp, #44]\n\t"                                                                  \
        "str %[a7], [sp, #68]\n\t"                                                                  \
        "str %[a0], [sp, #96]\n\t"                                                                  \
        "cmp %[a0], %[wo]\n\t"                                                                      \
        "beq 60b\n\t"                                                                               \
        "b 10b\n\t"
#define MF_DWQ_FRAME "184"
#else
#define MF_DWQ_EDGE_SAVE
#define MF_DWQ_EDGE_ENTRY
#define MF_DWQ_EDGE_LOAD
#define MF_DWQ_EDGE_LAST
#define MF_DWQ_ROW_END "beq 90f\n\t"
#define MF_DWQ_NEXT_ROW
#define MF_DWQ_FRAME "144"
#endif
    /* the pair's group loop: one kind compiled, the one after label 10; more, its address (the
     * Thumb bit set) at [136] from the call's kind by a table (label 8, after the code), taken by
     * a load into pc (4 cycles a pair, where compares and branches on the kind took up to 8) */
#if MF_DW_ADJ + MF_DW_STEP2 + MF_DW_SPREAD > 1
#if MF_DW_SPREAD
#define MF_DWQ_FIRST_LOOP "20b"
#elif MF_DW_ADJ
#define MF_DWQ_FIRST_LOOP "40b"
#else
#define MF_DWQ_FIRST_LOOP "50b"
#endif
/* (by kind, MF_DW_KIND_*: a kind without its loop in the build is never passed) */
#if MF_DW_SPREAD
#define MF_DWQ_T0 "20b"
#else
#define MF_DWQ_T0 MF_DWQ_FIRST_LOOP
#endif
#if MF_DW_ADJ
#define MF_DWQ_T1 "40b"
#else
#define MF_DWQ_T1 MF_DWQ_FIRST_LOOP
#endif
#if MF_DW_STEP2
#define MF_DWQ_T2 "50b"
#else
#define MF_DWQ_T2 MF_DWQ_FIRST_LOOP
#endif
#define MF_DWQ_KIND_SETUP                                                                          \
        "adr.w %[wl], 8f\n\t"                                                                      \
        "ldr %[wl], [%[wl], %[a5], lsl #2]\n\t"                                                    \
        "str %[wl], [sp, #136]\n\t"
#define MF_DWQ_KIND_TABLE                                                                          \
        ".p2align 2\n\t"                                                                           \
        "8:\n\t"                                                                                   \
        ".word " MF_DWQ_T0 " + 1, " MF_DWQ_T1 " + 1, " MF_DWQ_T2 " + 1\n\t"
#define MF_DWQ_DISPATCH "ldr pc, [sp, #136]\n\t"
#else
#define MF_DWQ_KIND_SETUP
#define MF_DWQ_KIND_TABLE
#define MF_DWQ_DISPATCH
#endif
    __asm__ volatile(
        "sub sp, sp, #" MF_DWQ_FRAME "\n\t"
        MF_DWQ_EDGE_SAVE
        MF_DWQ_KIND_SETUP
        /* the call's constants and the first pair's state, two words a STRD (a0, a1 and r wait
         * for the taps) */
        "lsl %[wo], %[a1], #1\n\t"
        "strd %[a2], %[wo], [sp, #96]\n\t"
        "strd %[a4], %[a7], [sp, #120]\n\t"
        "str %[x], [sp, #128]\n\t"
        "sub %[wl], %[wo], %[a4]\n\t"
        "sub %[a3], %[a3], %[g4], lsl #4\n\t"
        "strd %[wl], %[a3], [sp, #72]\n\t"
        "lsl %[a2], %[a7], #1\n\t"
        "strd %[a6], %[a2], [sp, #112]\n\t"
        "sub %[a2], %[a2], %[wo]\n\t"
        "sub %[w], %[w], #4\n\t"
        "strd %[a2], %[w], [sp, #104]\n\t"
        "add %[a4], %[g4], %[a4]\n\t"
        "cmp %[x], #0\n\t" /* B's words: into held, or (NULL) straight out */
        "ite eq\n\t"
        "addeq %[x], %[a6], %[a7]\n\t"
        "rsbne %[a2], %[wo], #0\n\t"
        "strd %[a4], %[a2], [sp, #88]\n\t"
        "sub %[a6], %[a6], %[g4]\n\t"
        "sub %[x], %[x], %[g4]\n\t"
        "strd %[a6], %[x], [sp, #80]\n\t"
        "mov %[a2], sp\n\t"
        "movs %[a3], #3\n\t"
        "1:\n\t" /* the taps of A and B, three at a time (a4 - a7 are free until the first
                    * group: six loads back to back, one cycle each behind the first) */
        "ldr %[a4], [%[a0]], #4\n\t"
        "ldr %[a5], [%[a0]], #4\n\t"
        "ldr %[a6], [%[a0]], #4\n\t"
        "ldr %[a7], [%[r]], #4\n\t"
        "ldr %[x], [%[r]], #4\n\t"
        "ldr %[wl], [%[r]], #4\n\t"
        "add %[a7], %[a7], %[a1]\n\t"
        "add %[x], %[x], %[a1]\n\t"
        "add %[wl], %[wl], %[a1]\n\t"
        "strd %[a4], %[a7], [%[a2]], #8\n\t"
        "strd %[a5], %[x], [%[a2]], #8\n\t"
        "strd %[a6], %[wl], [%[a2]], #8\n\t"
        "subs %[a3], %[a3], #1\n\t"
        "bne 1b\n\t"
        MF_DWQ_EDGE_ENTRY
        "10:\n\t" /* pair: g4 its first group's offset, w 4 bytes before the weights' block */
        MF_DWQ_DISPATCH
#if MF_DW_SPREAD
        MF_DWQ_GROUP(20, a4, a5, a6, a7, MF_DWQ_TAPS_ANY)
#if MF_DW_ADJ || MF_DW_STEP2
        "b 29f\n\t"
#endif
#endif
#if MF_DW_ADJ
        MF_DWQ_GROUP(40, a4, a5, a6, a7, MF_DWQ_TAPS_ADJ)
#if MF_DW_STEP2
        "b 29f\n\t"
#endif
#endif
#if MF_DW_STEP2
        MF_DWQ_GROUP(50, a0, a1, a2, a3, MF_DWQ_TAPS_STEP2)
#endif
        "29:\n\t"
        /* the pair's end (g4 and r its last group end): B's words out (if held), then the next
         * pair of the run (its state moved on by the call's steps: a load run, five adds, two
         * STRDs), or out */
        "ldr %[x], [sp, #128]\n\t"
        "cmp %[x], #0\n\t"
        "bne 30f\n\t"
        "31:\n\t"
        "ldr %[a0], [sp, #96]\n\t"
        "ldr %[a1], [sp, #76]\n\t"
        "ldr %[a2], [sp, #80]\n\t"
        "ldr %[a3], [sp, #84]\n\t"
        "ldr %[a4], [sp, #100]\n\t"
        "ldr %[a5], [sp, #104]\n\t"
        "ldr %[a6], [sp, #92]\n\t"
        "ldr %[a7], [sp, #72]\n\t"
        "ldr %[w], [sp, #108]\n\t"
        MF_DWQ_EDGE_LOAD
        "subs %[a0], %[a0], #1\n\t"
        MF_DWQ_ROW_END
        "add %[g4], %[g4], %[a7]\n\t" /* the next pair's first group offset */
        "add %[r], %[r], %[a4]\n\t"  /* and its group end */
        "sub %[a1], %[a1], %[a4], lsl #4\n\t"
        "add %[a2], %[a2], %[a5]\n\t"
        "add %[a3], %[a3], %[a6]\n\t"
        "strd %[a1], %[a2], [sp, #76]\n\t"
        "strd %[a3], %[r], [sp, #84]\n\t"
        "str %[a0], [sp, #96]\n\t"
        MF_DWQ_EDGE_LAST
        "b 10b\n\t"
        MF_DWQ_KIND_TABLE
        "30:\n\t" /* B's words from held to B's dst; A's dst on */
        "ldr %[a0], [sp, #120]\n\t"
        "ldr %[wl], [sp, #112]\n\t"
        "ldr %[wo], [sp, #124]\n\t"
        "ldr %[a1], [sp, #116]\n\t"
        "add %[a1], %[a1], %[wl]\n\t"
        "str %[a1], [sp, #112]\n\t"
        "add %[wl], %[wl], %[wo]\n\t"
        "32:\n\t"
        "ldr %[wo], [%[x]], #4\n\t"
        "str %[wo], [%[wl]], #4\n\t"
        "subs %[a0], %[a0], #4\n\t"
        "bne 32b\n\t"
        "b 31b\n\t"
        MF_DWQ_NEXT_ROW
        "90:\n\t"
        "add sp, sp, #" MF_DWQ_FRAME "\n\t"
        : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [a4] "+r"(a4), [a5] "+r"(a5),
          [a6] "+r"(a6), [a7] "+r"(a7), [g4] "+r"(g4), [w] "+r"(w), [x] "+r"(x), [r] "+r"(r),
          [wl] "+r"(wl), [wo] "+r"(wo)
        :
        : "cc", "memory");
#undef MF_DWQ_TAP
#undef MF_DWQ_TAP_
#undef MF_DWQ_TAPK
#undef MF_DWQ_TAPBA_
#undef MF_DWQ_TAPB
#undef MF_DWQ_B
#undef MF_DWQ_A
#undef MF_DWQ_GROUP
#undef MF_DWQ_TAPS_ANY
#undef MF_DWQ_TAPS_ADJ
#undef MF_DWQ_TAPS_STEP2
#undef MF_DWQ_TAPBA
#undef MF_DWQ_TAPR
#undef MF_DWQ_RQ
#undef MF_DWQ_SAVE_W
#undef MF_DWQ_LOAD_W
#undef MF_DWQ_PACK
#undef MF_DWQ_EDGE_SAVE
#undef MF_DWQ_EDGE_LAST
#undef MF_DWQ_EDGE_ENTRY
#undef MF_DWQ_EDGE_LOAD
#undef MF_DWQ_FRAME
#undef MF_DWQ_ROW_END
#undef MF_DWQ_NEXT_ROW
#undef MF_DWQ_FIRST_LOOP
#undef MF_DWQ_T0
#undef MF_DWQ_T1
#undef MF_DWQ_T2
#undef MF_DWQ_KIND_TABLE
#undef MF_DWQ_KIND_SETUP
#undef MF_DWQ_DISPATCH
#else
    (void)held;
    (void)kind;
#if MF_MVE /* (Helium never runs to a border: mf_dwconv2d_s8_dsp_loop's edge2) */
    (void)zr;
    (void)block;
#else
    if (off_b == off && zr) { /* each run's last pixel: its third column at zr; zv: a window row */
        const int32_t n = 2 * pairs, zv = block != NULL ? block[0] : 0, rows = block != NULL ? block[1] : 1;
        const int32_t row_step = block != NULL ? block[2] : 0, dst_row_step = block != NULL ? block[3] : 0;
        intptr_t tap[9];
        int32_t y, i, t;
        for (y = 0; y < rows; y++) {
            for (i = 0; i < n; i++) {
                const uintptr_t at = (uintptr_t)base + (uintptr_t)(y * row_step) + (uintptr_t)(i * step);
                for (t = 0; t < 9; t++) {
                    const int outside = (zv && t / 3 == zv / 24) || (i == n - 1 && t % 3 == 2);
                    tap[t] = outside ? (intptr_t)((uintptr_t)zr - at) : off[t];
                }
                mf_dw_pixels(tap, 9, (const int8_t *)at, 0, w, qb, groups, lshift, dst + y * dst_row_step + i * dst_step,
                             1, 0, 0);
            }
        }
        return;
    }
#endif
    if (off_b == off) {
        mf_dw_pixels(off, 9, base, 0, w, qb, groups, lshift, dst, 2 * pairs, (int32_t)step, dst_step);
    } else {
        mf_dw_pixels(off, 9, base, 0, w, qb, groups, lshift, dst, 1, 0, 0);
        mf_dw_pixels(off_b, 9, (const int8_t *)((uintptr_t)base + (uintptr_t)step), 0, w, qb, groups, lshift,
                     dst + dst_step, 1, 0, 0);
    }
#endif
}

#endif /* MF_DW_PAIRS_H */
