/* microfuse runtime: a run of interior pixels of a 3x3 stride-1 depthwise convolution four at a
 * time (mf_dwconv2d_s8_dsp_body.h, builds with MF_DW_QUADS: lower/fast.py dw_sizes), each input
 * word of a window row loaded once for the four pixels that read it.
 *
 * Four neighbours read six input columns a row; column k is tap k - j of pixel j. Eight
 * accumulators hold two channels of the four pixels, so a channel group goes in two passes over
 * the same input words: the even channels (SXTB16: c0 and c2, the weights' (w0, w2) lane words
 * of MF_W16) and the odd ones (SXTB16 ror 8: c1 and c3, the (w1, w3) words). Per window row a
 * pass loads the row's three weight words once and the six columns (two at a time, their offsets
 * from the frame), 24 SMLABB / SMLATT: 3 rows x 6 columns for 72 MACs where mf_dw_pairs (two
 * pixels, four channels) loads a tap's input word per pixel. Each pass requantizes its eight
 * values like mf_dw_pairs (SMMLAR with the sign step in its addend, the shift, SSAT); the even
 * pass packs each pixel's two bytes (BFI) into the frame, the odd pass fills in the other two and
 * stores the word.
 *
 * A run by offsets may start at a row's left border and end at its right one (padding 1: a row's
 * first 4 q pixels in one call, mf_dwconv2d_s8_dsp_body.h): `zl` (the input zero point's row, else
 * 0) redirects the first quad's column 0 there, `zr` the last quad's column 5 (their frame
 * entries patched: zrow less the quad's leftmost window, restored after the first quad), and `zv`
 * (24 r + 4, else 0) a window row r above or below the image to it, for every quad.
 *
 * The column offsets come from the frame (two loads a column, the frame's one pipelined: a cycle).
 * Tried: immediate offsets in a second group loop for one geometry per build (VWW's 48 x 8 rows,
 * the interior quads: zl, zr and zv patch the frame's words): -25.5 K cycles for +1,554 B of code,
 * ~60 B per K cycles, the other geometries less (VWW's 6-wide rows have no interior quad); not kept.
 *
 * Access order: a group's words are stored once all four windows have read that group (both
 * passes), so the caller takes this path only when no store can reach a word still to be read
 * (the output apart from the input, or over it whole pixels away: mf_dw_pairs.h's b_direct).
 * Without the assembly (the host, -O0) the quads are mf_dw_pixels' pixels one after the other. */
#ifndef MF_DW_QUADS_H
#define MF_DW_QUADS_H

#include "mf_fast.h"
/* (included by mf_dwconv2d_s8_dsp_body.h after mf_dw_pixels, its path without the assembly) */

/* `quads` fours of pixels walked from base (pixel i's window at base + i step, its groups to dst +
 * i dst_step; step = +-in_c: reversed runs walk leftwards), cols the 18 column offsets [row][0 ..
 * 6) from the leftmost pixel's first tap (a run of interior pixels: off[3 row] + col in_c; a
 * forward run from a row's left border, zl the zero point's row: the first quad's column 0 reads
 * it; to its right border, zr, quads >= 2: the last quad's column 5); or four pixels anywhere in
 * a row (quads 1, base NULL, step +-1 the walk's direction, zl = zr = zv = 0): cols the leftmost
 * pixel's column addresses, the input zero point's row outside. zv (with zl) a window row
 * outside the image: 24 r + 4 for row r, its six columns the zero point's row. */
MF_HELPER void mf_dw_quads(const intptr_t *cols, const int8_t *base, int32_t quads, intptr_t step,
                           const uint32_t *w, const int32_t *qb, int32_t groups, int32_t lshift, int8_t *dst,
                           int32_t dst_step, intptr_t zl, intptr_t zr, int32_t zv)
{
#if MF_ASM_LOOPS && !MF_MVE
    /* The frame: [0, 72) the column offsets (row r column k at 24 r + 4 k); [72] the group's
     * block of weights and [76] its table block;
     * [80, 96) the even pass's packed words of the four pixels; [96, 112) the pixels' outputs
     * less the quad's first group offset; [112] the weights' end (the group loop's, by e: a
     * constant of the call, not a quad's g4 bound); [116] quads left; [120] g4's move from a
     * quad's last group to the next quad's first; [124] 4 dst_step less 4 step (0: the outputs
     * less g4 stay); [128] w; [132] qb (both less the bytes MF_DWQD_W2_NEXT and MF_DWQD_TAB_NEXT
     * take); [136] the first quad's leftmost pixel's output; [140] the output step of a pixel to
     * the right; ([144] and [148] unused);
     * [152] zl while the first quad's column 0 is patched, else 0; [156] zr; [160] the quads
     * left at which a quad's end restores column 0 or patches column 5 or a row (0: none);
     * [164, 176) column 0's offsets while patched; [176] zv; [180] zl ([152] and up only in
     * MF_DW_EDGES builds, MF_DWQD_FRAME). */
    const int32_t back = step < 0 ? 3 : 0; /* a reversed run's quads: their leftmost pixel first */
    /* (a1: g4 from a quad's last group to the next quad's first; a4: the weights' end, the last
     * group's next block; a7: the outputs' move less the input's, a quad to the next) */
    int32_t a0 = quads, a1 = (int32_t)(4 * step - 4 * groups), a2 = (int32_t)((uintptr_t)w - 4u);
    int32_t a3 = (int32_t)((uintptr_t)qb - 36u) /* MF_DWQD_TQ */;
    int32_t a4 = (int32_t)((uintptr_t)(w + (4 + 2 * 9) * groups) - 4u);
    int32_t a5 = (int32_t)(uintptr_t)(dst + back * dst_step);
    int32_t a6 = step < 0 ? -dst_step : dst_step, a7 = (int32_t)(4 * dst_step - 4 * step);
    /* g4, e, f and w0 in low registers: their frame loads, loads by g4 and weight loads (the bulk
     * of the loop's loads) then take 16-bit encodings, whatever registers the compiler picks for
     * the rest */
    register int32_t g4 __asm__("r1") = base == NULL ? 0 : (int32_t)((uintptr_t)base + (uintptr_t)(back * step));
    register int32_t e __asm__("r0") = (int32_t)(uintptr_t)cols;
    register int32_t f __asm__("r4") = (int32_t)zl;
    register int32_t w0 __asm__("r5") = (int32_t)zr;
    int32_t w1, w2 = zv;
    /* the first quad's end restores column 0 (zl) and patches the row outside again (zv), the
     * one before the last patches column 5 (zr) */
    w1 = !MF_DW_EDGES || quads < 2 ? 0 : zl ? quads - 1 : zr ? 1 : 0;
    (void)lshift; /* folded into the weights' block (MF_W16) */
    /* lo += x.bottom w.bottom, hi += x.top w.top: two channels of one pixel */
#define MF_DWQD_MAC(lo, hi, x, w)                              \
    "smlabb %[" #lo "], %[" #x "], %[" #w "], %[" #lo "]\n\t" \
    "smlatt %[" #hi "], %[" #x "], %[" #w "], %[" #hi "]\n\t"
    /* the same for lo and hi's first products: a6 and a7 hold the biases until their own */
#define MF_DWQD_MAC0(lo, hi, x, w)                            \
    "smlabb %[" #lo "], %[" #x "], %[" #w "], %[a6]\n\t"     \
    "smlatt %[" #hi "], %[" #x "], %[" #w "], %[a7]\n\t"
    /* two columns' words of row r (from the frame's offsets), split by `sx` */
#define MF_DWQD_COLS(r, k, sx)                            \
    "ldr %[e], [sp, #(24 * " #r " + 4 * " #k ")]\n\t"     \
    "ldr %[e], [%[e], %[g4]]\n\t"                         \
    "ldr %[f], [sp, #(24 * " #r " + 4 * " #k " + 4)]\n\t" \
    "ldr %[f], [%[f], %[g4]]\n\t"                         \
    "sxtb16 %[e], %[e]" sx "\n\t"                         \
    "sxtb16 %[f], %[f]" sx "\n\t"
    /* window row r: its three weight words (w0 w1 w2: taps 3 r .. 3 r + 2, the pass's lane words
     * o bytes into each tap's pair), columns 0 - 5; e the group's block (reload: from the frame);
     * first: the MAC of a0 - a5's first products (row 0: MF_DWQD_MAC0, from the biases); w2ld
     * its last weight word's load. e, as the frame's [72], is the block less 4 bytes, so that the
     * odd pass's last one (88 bytes on) moves it on to the next group's (MF_DWQD_W2_NEXT:
     * writeback, stored for the rest of the group, the next group's start reads it) */
#define MF_DWQD_W2(r, o) "ldr %[w2], [%[e], #(36 + 24 * " #r " + " #o ")]\n\t"
#define MF_DWQD_W2_NEXT(r, o)                                          \
    "ldr %[w2], [%[e], #(36 + 24 * " #r " + " #o ")]!\n\t"             \
    "str %[e], [sp, #72]\n\t"
#define MF_DWQD_ROW(r, sx, o, reload, first, w2ld)                     \
    reload                                                             \
    "ldr %[w0], [%[e], #(20 + 24 * " #r " + " #o ")]\n\t"              \
    "ldr %[w1], [%[e], #(28 + 24 * " #r " + " #o ")]\n\t"              \
    w2ld(r, o)                                                         \
    MF_DWQD_COLS(r, 0, sx)                                 \
    first(a0, a1, e, w0)                                   \
    MF_DWQD_MAC(a0, a1, f, w1) first(a2, a3, f, w0)        \
    MF_DWQD_COLS(r, 2, sx)                                 \
    MF_DWQD_MAC(a0, a1, e, w2) MF_DWQD_MAC(a2, a3, e, w1)  \
    first(a4, a5, e, w0)                                   \
    MF_DWQD_MAC(a2, a3, f, w2) MF_DWQD_MAC(a4, a5, f, w1)  \
    MF_DWQD_MAC(a6, a7, f, w0)                             \
    MF_DWQD_COLS(r, 4, sx)                                 \
    MF_DWQD_MAC(a4, a5, e, w2) MF_DWQD_MAC(a6, a7, e, w1)  \
    MF_DWQD_MAC(a6, a7, f, w2)
    /* requantize p with the channel's constants (w0 multiplier, w1 addend, w2 shift); without
     * MF_DW_SIGN the addend goes in as it is (mf_dwconv2d_s8_dsp_body.h: a negative p saturates
     * to -128 with or without the sign step) */
#if MF_DW_SIGN
#define MF_DWQD_Q(p)                                   \
    "add %[f], %[w1], %[" #p "], asr #31\n\t"          \
    "smmlar %[" #p "], %[" #p "], %[w0], %[f]\n\t"     \
    "asr %[" #p "], %[" #p "], %[w2]\n\t"              \
    "ssat %[" #p "], #8, %[" #p "]\n\t"
#else
#define MF_DWQD_Q(p)                                   \
    "smmlar %[" #p "], %[" #p "], %[w0], %[w1]\n\t"    \
    "asr %[" #p "], %[" #p "], %[w2]\n\t"              \
    "ssat %[" #p "], #8, %[" #p "]\n\t"
#endif
    /* a pass over the group's channels o / 4 and o / 4 + 2 (o 0 the even pass, 4 the odd): the
     * biases (into a6 and a7, the addends of every pixel's first products: two loads, not
     * eight), the rows, the requantization (the table block's entries o bytes in) */
#define MF_DWQD_RELOAD "ldr %[e], [sp, #72]\n\t"
    /* (start: the block's reload, or "" where e holds it: the even pass, from the group's start) */
#define MF_DWQD_PASS(sx, o, start, w2ld, last)                                    \
    start                                                                         \
    "ldr %[a6], [%[e], #(4 + " #o ")]\n\t"                                        \
    "ldr %[a7], [%[e], #(12 + " #o ")]\n\t"                                       \
    MF_DWQD_ROW(0, sx, o, "", MF_DWQD_MAC0, MF_DWQD_W2)                           \
    MF_DWQD_ROW(1, sx, o, MF_DWQD_RELOAD, MF_DWQD_MAC, MF_DWQD_W2)                \
    MF_DWQD_ROW(2, sx, o, MF_DWQD_RELOAD, MF_DWQD_MAC, w2ld)                      \
    "ldr %[e], [sp, #76]\n\t"                                                     \
    "ldr %[w0], [%[e], #(16 + " #o " + " MF_DWQD_TQ ")]\n\t"                      \
    "ldr %[w1], [%[e], #(32 + " #o " + " MF_DWQD_TQ ")]\n\t"                      \
    "ldr %[w2], [%[e], #(48 + " #o " + " MF_DWQD_TQ ")]\n\t"                      \
    MF_DWQD_Q(a0) MF_DWQD_Q(a2) MF_DWQD_Q(a4) MF_DWQD_Q(a6)                       \
    last(o)                                                                       \
    MF_DWQD_Q(a1) MF_DWQD_Q(a3) MF_DWQD_Q(a5) MF_DWQD_Q(a7)
    /* the table block less MF_DWQD_TQ bytes in the frame ([76]), so that the odd pass's load of
     * its channels' multipliers (24 + 4 bytes in) moves it on to the next group's (64 bytes on:
     * writeback), stored right behind the loads (pipelined), not at the group's end */
#define MF_DWQD_TQ "36"
#define MF_DWQD_TAB(o)                                                            \
    "ldr %[w0], [%[e], #(24 + " #o " + " MF_DWQD_TQ ")]\n\t"                      \
    "ldr %[w1], [%[e], #(40 + " #o " + " MF_DWQD_TQ ")]\n\t"                      \
    "ldr %[w2], [%[e], #(56 + " #o " + " MF_DWQD_TQ ")]\n\t"
#define MF_DWQD_TAB_NEXT(o)                                                       \
    "ldr %[w0], [%[e], #64]!\n\t"                                                 \
    "ldr %[w1], [%[e], #16]\n\t"                                                  \
    "ldr %[w2], [%[e], #32]\n\t"                                                  \
    "str %[e], [sp, #76]\n\t"
    /* the borders of a run from a row's left one to its right one (MF_DW_EDGES builds) */
#if MF_DW_EDGES
#define MF_DWQD_EDGE_SAVE                                                                           \
        "strd %[f], %[w0], [sp, #152]\n\t"                                                          \
        "str %[w1], [sp, #160]\n\t"                                                                 \
        "strd %[w2], %[f], [sp, #176]\n\t"
    /* window row zv / 24 at the zero point's row: v (zrow less g4) into its six words */
#define MF_DWQD_EDGE_ROW(v, at)                                                                     \
        "add %[" #at "], sp, %[" #at "]\n\t"                                                        \
        "strd %[" #v "], %[" #v "], [%[" #at "], #-4]\n\t"                                          \
        "strd %[" #v "], %[" #v "], [%[" #at "], #4]\n\t"                                           \
        "strd %[" #v "], %[" #v "], [%[" #at "], #12]\n\t"
#define MF_DWQD_EDGE_FIRST                                                                          \
        "ldr %[f], [sp, #152]\n\t" /* a run from the left border: the first quad's column 0 */      \
        "cmp %[f], #0\n\t"                                                                          \
        "beq 3f\n\t"                                                                                \
        "ldr %[w0], [sp, #0]\n\t"                                                                   \
        "ldr %[w1], [sp, #24]\n\t"                                                                  \
        "ldr %[w2], [sp, #48]\n\t"                                                                  \
        "str %[w0], [sp, #164]\n\t"                                                                 \
        "str %[w1], [sp, #168]\n\t"                                                                 \
        "str %[w2], [sp, #172]\n\t"                                                                 \
        "sub %[f], %[f], %[g4]\n\t"                                                                 \
        "str %[f], [sp, #0]\n\t"                                                                    \
        "str %[f], [sp, #24]\n\t"                                                                   \
        "str %[f], [sp, #48]\n\t"                                                                   \
        "ldr %[w2], [sp, #176]\n\t" /* and a window row outside the image */                        \
        "cmp %[w2], #0\n\t"                                                                         \
        "beq 3f\n\t"                                                                                \
        MF_DWQD_EDGE_ROW(f, w2)
#define MF_DWQD_EDGE_LOAD                                                                           \
        "ldr %[a5], [sp, #160]\n\t"
#define MF_DWQD_EDGE_CHECK                                                                          \
        "cmp %[a0], %[a5]\n\t"                                                                      \
        "beq 60f\n\t"
#define MF_DWQD_EDGE_HANDLER                                                                        \
        "60:\n\t" /* after the first quad column 0 back (zl) */                                     \
        "ldr %[f], [sp, #152]\n\t"                                                                  \
        "ldr %[w2], [sp, #176]\n\t"                                                                 \
        "cmp %[f], #0\n\t"                                                                          \
        "beq 61f\n\t"                                                                               \
        "ldr %[w0], [sp, #164]\n\t"                                                                 \
        "ldr %[w1], [sp, #168]\n\t"                                                                 \
        "ldr %[f], [sp, #172]\n\t"                                                                  \
        "str %[w0], [sp, #0]\n\t"                                                                   \
        "str %[w1], [sp, #24]\n\t"                                                                  \
        "str %[f], [sp, #48]\n\t"                                                                   \
        "mov %[f], #0\n\t"                                                                          \
        "str %[f], [sp, #152]\n\t"                                                                  \
        "61:\n\t"                                                                                   \
        "cmp %[w2], #0\n\t"                                                                         \
        "bne 66f\n\t"                                                                               \
        "ldr %[f], [sp, #156]\n\t" /* no row outside: before the last quad column 5 (zr) */         \
        "cmp %[a0], #1\n\t"                                                                         \
        "bne 63f\n\t"                                                                               \
        "cmp %[f], #0\n\t"                                                                          \
        "beq 67f\n\t"                                                                               \
        "sub %[f], %[f], %[g4]\n\t"                                                                 \
        "str %[f], [sp, #20]\n\t"                                                                   \
        "str %[f], [sp, #44]\n\t"                                                                   \
        "str %[f], [sp, #68]\n\t"                                                                   \
        "67:\n\t" /* the last quad next: no more events */                                          \
        "mov %[f], #0\n\t"                                                                          \
        "str %[f], [sp, #160]\n\t"                                                                  \
        "b 10b\n\t"                                                                                 \
        "63:\n\t" /* more quads: the next event column 5's (1 quad left) if zr, else none */        \
        "cmp %[f], #0\n\t"                                                                          \
        "it ne\n\t"                                                                                 \
        "movne %[f], #1\n\t"                                                                        \
        "str %[f], [sp, #160]\n\t"                                                                  \
        "b 10b\n\t"                                                                                 \
        "66:\n\t" /* a row outside: patched again, column 5 too before the last quad; the next */   \
        "ldr %[f], [sp, #180]\n\t" /* event the next quad's end */                                  \
        "sub %[f], %[f], %[g4]\n\t"                                                                 \
        MF_DWQD_EDGE_ROW(f, w2)                                                                     \
        "ldr %[f], [sp, #156]\n\t"                                                                  \
        "cmp %[a0], #1\n\t"                                                                         \
        "bne 68f\n\t"                                                                               \
        "cmp %[f], #0\n\t"                                                                          \
        "beq 67b\n\t"                                                                               \
        "sub %[f], %[f], %[g4]\n\t"                                                                 \
        "str %[f], [sp, #20]\n\t"                                                                   \
        "str %[f], [sp, #44]\n\t"                                                                   \
        "str %[f], [sp, #68]\n\t"                                                                   \
        "b 67b\n\t"                                                                                 \
        "68:\n\t"                                                                                   \
        "sub %[f], %[a0], #1\n\t"                                                                   \
        "str %[f], [sp, #160]\n\t"                                                                  \
        "b 10b\n\t"
#define MF_DWQD_FRAME "184"
#else
#define MF_DWQD_FRAME "152" /* (no edge words) */
#define MF_DWQD_EDGE_SAVE
#define MF_DWQD_EDGE_FIRST
#define MF_DWQD_EDGE_LOAD
#define MF_DWQD_EDGE_CHECK
#define MF_DWQD_EDGE_HANDLER
#endif
    __asm__ volatile(
        "sub sp, sp, #" MF_DWQD_FRAME "\n\t"
        MF_DWQD_EDGE_SAVE
        "strd %[a4], %[a0], [sp, #112]\n\t"
        "strd %[a1], %[a7], [sp, #120]\n\t"
        "strd %[a2], %[a3], [sp, #128]\n\t"
        "strd %[a5], %[a6], [sp, #136]\n\t"
        "mov %[f], sp\n\t"
        "movs %[w0], #3\n\t"
        "1:\n\t" /* the column offsets, a row at a time */
        "ldr %[a0], [%[e]], #4\n\t"
        "ldr %[a1], [%[e]], #4\n\t"
        "ldr %[a2], [%[e]], #4\n\t"
        "ldr %[a3], [%[e]], #4\n\t"
        "ldr %[a4], [%[e]], #4\n\t"
        "ldr %[a5], [%[e]], #4\n\t"
        "strd %[a0], %[a1], [%[f]], #8\n\t"
        "strd %[a2], %[a3], [%[f]], #8\n\t"
        "strd %[a4], %[a5], [%[f]], #8\n\t"
        "subs %[w0], %[w0], #1\n\t"
        "bne 1b\n\t"
        MF_DWQD_EDGE_FIRST
        "3:\n\t"
        /* the pixels' outputs less the first quad's first group offset: the next quads of a run
         * keep them while the output moves with the input (4 dst_step == 4 step, the quad's end) */
        "ldr %[a0], [sp, #136]\n\t"
        "ldr %[a1], [sp, #140]\n\t"
        "sub %[a0], %[a0], %[g4]\n\t"
        "add %[a5], %[a0], %[a1]\n\t"
        "add %[a6], %[a5], %[a1]\n\t"
        "add %[a7], %[a6], %[a1]\n\t"
        "strd %[a0], %[a5], [sp, #96]\n\t"
        "strd %[a6], %[a7], [sp, #104]\n\t"
        "10:\n\t" /* quad: g4 its leftmost pixel's first group offset */
        "ldr %[e], [sp, #128]\n\t"
        "ldr %[a4], [sp, #132]\n\t"
        "strd %[e], %[a4], [sp, #72]\n\t"
        "20:\n\t" /* group: e its block of weights; the even pass, its bytes 0 and 2 of each pixel
                     * into the frame */
        MF_DWQD_PASS("", 0, "", MF_DWQD_W2, MF_DWQD_TAB)
        "bfi %[a0], %[a1], #16, #8\n\t"
        "bfi %[a2], %[a3], #16, #8\n\t"
        "bfi %[a4], %[a5], #16, #8\n\t"
        "bfi %[a6], %[a7], #16, #8\n\t"
        "strd %[a0], %[a2], [sp, #80]\n\t"
        "strd %[a4], %[a6], [sp, #88]\n\t"
        MF_DWQD_PASS(", ror #8", 4, MF_DWQD_RELOAD, MF_DWQD_W2_NEXT, MF_DWQD_TAB_NEXT) /* the odd channels */
        /* bytes 1 and 3 in, then each word's store right behind its address's load (pipelined),
         * the last one behind the next group's block and the weights' end too */
        "ldr %[e], [sp, #80]\n\t"
        "ldr %[f], [sp, #84]\n\t"
        "ldr %[w0], [sp, #88]\n\t"
        "ldr %[w1], [sp, #92]\n\t"
        "bfi %[e], %[a0], #8, #8\n\t"
        "bfi %[e], %[a1], #24, #8\n\t"
        "bfi %[f], %[a2], #8, #8\n\t"
        "bfi %[f], %[a3], #24, #8\n\t"
        "bfi %[w0], %[a4], #8, #8\n\t"
        "bfi %[w0], %[a5], #24, #8\n\t"
        "bfi %[w1], %[a6], #8, #8\n\t"
        "bfi %[w1], %[a7], #24, #8\n\t"
        "ldr %[w2], [sp, #96]\n\t"
        "str %[e], [%[w2], %[g4]]\n\t"
        "ldr %[w2], [sp, #100]\n\t"
        "str %[f], [%[w2], %[g4]]\n\t"
        "ldr %[w2], [sp, #104]\n\t"
        "str %[w0], [%[w2], %[g4]]\n\t"
        "ldr %[w2], [sp, #108]\n\t"
        "ldr %[e], [sp, #72]\n\t" /* the next group's block (e, for its even pass) */
        "ldr %[f], [sp, #112]\n\t"
        "str %[w1], [%[w2], %[g4]]\n\t"
        "add %[g4], %[g4], #4\n\t"
        "cmp %[e], %[f]\n\t"
        "bne 20b\n\t"
        /* the quad's end: the next one of the run, or out */
        "ldr %[a0], [sp, #116]\n\t"
        "ldr %[a1], [sp, #120]\n\t"
        "ldr %[a4], [sp, #124]\n\t"
        MF_DWQD_EDGE_LOAD
        "subs %[a0], %[a0], #1\n\t"
        "beq 90f\n\t"
        "add %[g4], %[g4], %[a1]\n\t"
        "str %[a0], [sp, #116]\n\t"
        "cmp %[a4], #0\n\t"
        "bne 70f\n\t"
        "71:\n\t"
        MF_DWQD_EDGE_CHECK
        "b 10b\n\t"
        MF_DWQD_EDGE_HANDLER
        "70:\n\t" /* the output's step not the input's: the outputs less g4 move by the difference */
        "ldr %[a1], [sp, #96]\n\t"
        "ldr %[a3], [sp, #100]\n\t"
        "ldr %[a6], [sp, #104]\n\t"
        "ldr %[a7], [sp, #108]\n\t"
        "add %[a1], %[a1], %[a4]\n\t"
        "add %[a3], %[a3], %[a4]\n\t"
        "add %[a6], %[a6], %[a4]\n\t"
        "add %[a7], %[a7], %[a4]\n\t"
        "strd %[a1], %[a3], [sp, #96]\n\t"
        "strd %[a6], %[a7], [sp, #104]\n\t"
        "b 71b\n\t"
        "90:\n\t"
        "add sp, sp, #" MF_DWQD_FRAME "\n\t"
        : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [a4] "+r"(a4), [a5] "+r"(a5),
          [a6] "+r"(a6), [a7] "+r"(a7), [g4] "+r"(g4), [e] "+r"(e), [f] "+r"(f), [w0] "+r"(w0),
          [w1] "+r"(w1), [w2] "+r"(w2)
        :
        : "cc", "memory");
#undef MF_DWQD_MAC
#undef MF_DWQD_MAC0
#undef MF_DWQD_COLS
#undef MF_DWQD_ROW
#undef MF_DWQD_Q
#undef MF_DWQD_PASS
#undef MF_DWQD_TQ
#undef MF_DWQD_W2
#undef MF_DWQD_W2_NEXT
#undef MF_DWQD_TAB
#undef MF_DWQD_TAB_NEXT
#undef MF_DWQD_RELOAD
#undef MF_DWQD_EDGE_SAVE
#undef MF_DWQD_EDGE_FIRST
#undef MF_DWQD_EDGE_LOAD
#undef MF_DWQD_EDGE_CHECK
#undef MF_DWQD_EDGE_HANDLER
#undef MF_DWQD_EDGE_ROW
#undef MF_DWQD_FRAME
#else
    /* pixel by pixel in the walk's order, each one's taps from the columns */
    const int32_t back = step < 0 ? 3 : 0, right = back ? -dst_step : dst_step;
    uintptr_t left = base == NULL ? 0 : (uintptr_t)base + (uintptr_t)(back * step);
    int8_t *out = dst + back * dst_step;
    intptr_t tap[9];
    int32_t q, i, t;
    for (q = 0; q < quads; q++, left += (uintptr_t)(4 * step), out += 4 * dst_step) {
        for (i = 0; i < 4; i++) {
            const int32_t j = back ? 3 - i : i; /* from the left */
            for (t = 0; t < 9; t++) {
                const int32_t k = j + t % 3; /* the column */
                tap[t] = cols[6 * (t / 3) + k];
                if ((k == 0 && q == 0 && zl) || (k == 5 && q == quads - 1 && zr) || (zv && t / 3 == zv / 24)) {
                    tap[t] = (intptr_t)((uintptr_t)(k == 5 && zr ? zr : zl) - left);
                }
            }
            mf_dw_pixels(tap, 9, (const int8_t *)left, 0, w, qb, groups, lshift, out + j * right, 1, 0, 0);
        }
    }
#endif
}

#endif /* MF_DW_QUADS_H */
