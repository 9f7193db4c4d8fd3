/* CONV_2D int8, two output pixels at a time (in_c % 8 == 0, horizontal dilation 1, at most
 * MF_PAIR_OUT_MAX output channels unless there is nothing to finish (no stage); any kernel size,
 * stride, padding; int8 weights in flash).
 *
 * mf_conv2d_s8_gemm computes one pixel's four channels per pass over its window, so every weight
 * word it loads and sign-extends serves 4 MACs. This kernel takes two pixels (consecutive in
 * raster order), sign-extends both windows once into a stack buffer (per four values: pixel A's
 * even and odd int16 pairs, then pixel B's; in lockstep when their runs match, mf_gemm_segments,
 * else each window into its half), and then computes four channels of both pixels in one pass
 * per block (8 accumulators): per two window values (an even or odd half of four) 2 buffer loads
 * and 2 weight words, each two channels' weights mixed in int16 lanes, 256 w' + w
 * (lower/fast_gemm.py pair_weights): SXTB16 gives w's int16 pair, and the word as it is
 * accumulates 256 times the odd channel's sum plus the even one's, taken apart once a block: 4
 * loads, 2 SXTB16, 8 SMLAD per 16 MACs, a weight word serving both pixels. A call's odd last
 * pixel runs alone through the same buffer and block loop (its own chunk loop, 8 MACs per 3
 * loads). Windows up to MF_PAIR_WIDE values (the lowering's bound). The params are
 * mf_conv2d_s8_gemm's, the weights and channel table one stream (lower/fast_gemm.py
 * pair_stream), on every core (the Helium lowering skips this kernel; an Arm core without DSP
 * runs the portable loop).
 *
 * Access order (the planner's unstaged pixel units): both windows are read (into the buffer)
 * before the pair's first store; the blocks store straight into the output when there is
 * nothing to finish, else both pixels' channels go to a stack stage, then are finished (clamp,
 * epilogue) pixel by pixel in increasing order (decreasing when reversed); a lone pixel's window
 * too is read before its first store. No arena scratch. */
#ifndef MF_CONV2D_S8_PAIR_BODY_H
#define MF_CONV2D_S8_PAIR_BODY_H

#include "mf_conv2d_s8_gemm_body.h"

#define MF_PAIR_OUT_MAX 128 /* output channels of a pixel (the stage holds two pixels) */
#ifndef MF_PAIR_WIDE         /* window values of a pixel (the buffer holds both, as int16): */
#define MF_PAIR_WIDE 576     /* a build's mf_config.h sets its largest (lower/fast_gemm.py PAIR_WIDE) */
#endif
#ifndef MF_PAIR_WINDOWS      /* 1: some paired conv reads windows (not 1x1 stride-1 unpadded); */
#define MF_PAIR_WINDOWS 1    /* a build whose paired convs are all pointwise sets 0 (lower/fast_gemm.py) */
#endif
#ifndef MF_PAIR_RUNS         /* 1: some paired conv is pointwise and stores straight (mf_pair_run's */
#define MF_PAIR_RUNS 1       /* runs); a build without one sets 0 (lower/fast_gemm.py pair_sizes) */
#endif
#ifndef MF_PAIR_SHORT        /* 1: some paired conv's window is at most 16 chunks (128 values), whose */
#define MF_PAIR_SHORT 1      /* blocks skip the chunk loop's test (MF_PAIR_TURN_END); 0 in a build without */
#endif                       /* (lower/fast_gemm.py pair_sizes) */
#ifndef MF_PAIR_BUFS         /* 1: some narrow conv stores straight, its pairs' windows widened ahead */
#define MF_PAIR_BUFS 1       /* into consecutive buffers (mf_pair_next's ends); 0 in a build without */
#endif                       /* (lower/fast_gemm.py narrow_sizes, pair_sizes) */
#ifndef MF_PAIR_TIES         /* 1: some paired conv's output zero point is not -128, so the assembly */
#define MF_PAIR_TIES 1       /* rounds ties away from zero (MF_PAIR_RQ); 0 in a build where all are */
#endif                       /* (lower/fast_gemm.py pair_ties) */
#ifndef MF_PAIR_FIX          /* the even channels' fixed right shift, in a build whose streams all */
#define MF_PAIR_FIX 0        /* take lower/fast_gemm.py pair_fix's form (no ties); 0: per channel */
#endif
#if MF_PAIR_FIX && (MF_PAIR_TIES || (defined(MF_PAIR_KEEP) && MF_PAIR_KEEP))
#error "MF_PAIR_FIX: a build whose every paired stream takes the form (lower/fast_gemm.py pair_fixable)"
#endif

/* Where a pixel's odd int16 pairs and pixel B's words sit among each 4 values' 4 buffer words
 * (MF_PAIR_WORD: every reader and writer of the buffer goes through it).
 * The M4 layout [A even, A odd, B even, B odd] keeps each of the loop's loads single (they
 * pipeline at 1 cycle each, LDRD costs 3). A Cortex-M7 build (mf_config.h MF_WIDE_LOADS,
 * lower/tuning.py) lays them out [A even, B even, A odd, B odd]: one LDRD loads both pixels'
 * words, one instruction fewer per 16 MACs. */
#if defined(MF_WIDE_LOADS) && MF_WIDE_LOADS
#define MF_PAIR_ODD 2
#define MF_PAIR_B 1
#else
#define MF_PAIR_ODD 1
#define MF_PAIR_B 2
#endif
/* The buffer word of 4 values' group (0, 1, ...), pixel (0: A, 1: B), half (0: even, 1: odd). */
#define MF_PAIR_WORD(group, pixel, odd) (4 * (group) + (pixel) * MF_PAIR_B + (odd) * MF_PAIR_ODD)
#define MF_PAIR_STR_(x) #x
#define MF_PAIR_STR(x) MF_PAIR_STR_(x)
/* That word of a group in the assembly, behind the group's 16-byte post-increment. */
#define MF_PAIR_AT(pixel, odd) "[%[p], #(4 * " MF_PAIR_STR(MF_PAIR_WORD(0, pixel, odd)) " - 16)]"


/* The state of mf_pair_blocks's loop (the assembly copies it to its frame by offset: keep the
 * order). */
typedef struct {
    const uint32_t *wide; /* 0: both windows sign-extended, 4 words per 4 values (MF_PAIR_ODD,
                             MF_PAIR_B) */
    const uint32_t *end;  /* 4: its end (wide + depth) */
    int8_t *sta;          /* 8: where pixel A's first block goes */
    int32_t delta;        /* 12: bytes from pixel A's values to B's (0: A alone, B unread) */
    const uint32_t *w;    /* 16: the stream: per block its biases, weights, table (lower/fast_gemm.py
                             pair_stream; its last block marked, so no count) */
    int32_t lshift;       /* 20: the portable loop's left shift, 1 (lower/fast_gemm.py mixed_fits) */
} mf_pair_ctx;

/* A run of pointwise pairs (mf_pair_run; the assembly reads and updates it by offset: keep the
 * order), up to the pair whose A is at last. Each next pair's windows are the in_c values at x
 * (A, 2 xb on from the pair before) and x + xb (B),
 * which it sign-extends into the buffer itself, its blocks stored from the previous pair's store
 * pointer (past A's channels) plus sstep. Or (MF_PAIR_BUFS; x and last NULL) a run of pairs
 * widened ahead (mf_conv2d_s8_narrow): each next pair's buffer xb bytes on from the previous
 * one, up to the one at `ends`; nothing to widen. */
typedef struct {
    const int8_t *x;    /* 0: the current pair's pixel A values */
    int32_t xb;         /* 4: bytes from A's values to B's (the next pair's A: twice that on) */
    const int8_t *last; /* 8: the run's last pair's A values */
    const uint32_t *w;  /* 12: the stream's start */
    int32_t sstep;      /* 16: bytes from a pair's store pointer past A's channels to the next A's */
    const uint32_t *ends; /* 20: widened ahead: the last pair's buffer (else the buffer) */
} mf_pair_next;

#if MF_ASM_LOOPS
/* Two of four values of both pixels (lxy: their buffer words, the even or odd halves, into x
 * and y) and the four channels (mixed weight words lt, lu: channels 0-1 into t, 2-3 into u, all
 * four loads in a row, so that three pipeline): each word first multiplies as it is into its odd
 * channel's mixed accumulator (a1 b1, a3 b3), then SXTB16 in place gives its even channel's int16
 * pair: 4 loads (3 with an LDRD), 2 SXTB16, 8 SMLAD. */
#define MF_PAIR_HALF(lxy, lt, lu)                                                               \
    lxy "\n\t" lt "\n\t" lu "\n\t"                                                              \
    "smlad %[a1], %[x], %[t], %[a1]\n\t"                                                        \
    "smlad %[b1], %[y], %[t], %[b1]\n\t"                                                        \
    "sxtb16 %[t], %[t]\n\t"                                                                     \
    "smlad %[a0], %[x], %[t], %[a0]\n\t"                                                        \
    "smlad %[b0], %[y], %[t], %[b0]\n\t"                                                        \
    "smlad %[a3], %[x], %[u], %[a3]\n\t"                                                        \
    "smlad %[b3], %[y], %[u], %[b3]\n\t"                                                        \
    "sxtb16 %[u], %[u]\n\t"                                                                     \
    "smlad %[a2], %[x], %[u], %[a2]\n\t"                                                        \
    "smlad %[b2], %[y], %[u], %[b2]\n\t"
/* One group of 4 values (32 MACs; a chunk, 8 values, is two): the buffer's 16 bytes (4 words),
 * the weights' 16 (even channels 0-1, 2-3, odd 0-1, 2-3); both pointers post-incremented by the
 * group's first loads, so that any group can be entered as it is (a window of 8 n + 4 values at
 * its first chunk's second group: no stub to move the pointers on). */
#if MF_PAIR_B == 1 /* both pixels' words side by side: one LDRD */
#define MF_PAIR_XY(first, second) "ldrd %[x], %[y], " first
#else
#define MF_PAIR_XY(first, second) "ldr %[x], " first "\n\tldr %[y], " second
#endif
#define MF_PAIR_GROUP                                                                           \
    MF_PAIR_HALF(MF_PAIR_XY("[%[p]], #16", MF_PAIR_AT(1, 0)), "ldr %[t], [%[w]], #16",          \
                 "ldr %[u], [%[w], #-12]")                                                      \
    MF_PAIR_HALF(MF_PAIR_XY(MF_PAIR_AT(0, 1), MF_PAIR_AT(1, 1)), "ldr %[t], [%[w], #-8]",       \
                 "ldr %[u], [%[w], #-4]")
/* Pixel A alone: 4 values (A's even and odd words y, u) of the four channels (mixed weight
 * words b0-b3, each first as it is, then its SXTB16 in place): 6 loads, 4 SXTB16, 8 SMLAD. */
#define MF_PAIR_LONE4(lx, ly, l0, l1, l2, l3)                                                   \
    lx "\n\t" ly "\n\t" l0 "\n\t" l1 "\n\t" l2 "\n\t" l3 "\n\t"                             \
    "smlad %[a1], %[y], %[b0], %[a1]\n\t"                                                     \
    "sxtb16 %[b0], %[b0]\n\t"                                                                 \
    "smlad %[a0], %[y], %[b0], %[a0]\n\t"                                                     \
    "smlad %[a3], %[y], %[b1], %[a3]\n\t"                                                     \
    "sxtb16 %[b1], %[b1]\n\t"                                                                 \
    "smlad %[a2], %[y], %[b1], %[a2]\n\t"                                                     \
    "smlad %[a1], %[u], %[b2], %[a1]\n\t"                                                     \
    "sxtb16 %[b2], %[b2]\n\t"                                                                 \
    "smlad %[a0], %[u], %[b2], %[a0]\n\t"                                                     \
    "smlad %[a3], %[u], %[b3], %[a3]\n\t"                                                     \
    "sxtb16 %[b3], %[b3]\n\t"                                                                 \
    "smlad %[a2], %[u], %[b3], %[a2]\n\t"
/* Pixel A alone, one group of 4 values (16 MACs), both pointers post-incremented by its first
 * loads as MF_PAIR_GROUP's. */
#define MF_PAIR_LONE                                                                                     \
    MF_PAIR_LONE4("ldr %[y], [%[p]], #16", "ldr %[u], " MF_PAIR_AT(0, 1), "ldr %[b0], [%[w]], #16",     \
                  "ldr %[b1], [%[w], #-12]", "ldr %[b2], [%[w], #-8]", "ldr %[b3], [%[w], #-4]")
/* The chunk loop: MF_PAIR_CHUNKS chunks in a row (a build's, lower/fast_gemm.py pair_chunks: its
 * largest window's chunks up to a power of two, 4 to 16), entered from the table at 9 (mf_pair_run's
 * [16] entry) so that a window of n chunks runs the last n: the count from the end, a window of
 * 8 n + 4 values (a narrow conv's) entered at its first chunk's second group (2xx). A build of
 * fewer than 16 has no longer window and no test after the chunks. In a build of 16 with a window
 * of up to 16 chunks (MF_PAIR_SHORT, pair_sizes) such a window runs no test after its chunks: the
 * BMI after the last is not taken (N clear), its block goes on to its tail at 1 cycle. N is the
 * call's MF_PAIR_LONG flag (in every block's table, pair_stream: set for a window over 16 chunks,
 * only in a build of 16), from the table's ASRS (with the last block's flag in C) or, for a call's
 * first block, the prologue's RSBS.
 * A longer window's turns (its first entered at the count mod 16, a whole one at the first chunk)
 * compare p with the last turn's start ([24]) at 20, after the first, which leaves N set while
 * another turn follows, for the BMI: 6 cycles a turn, as the test after the turn takes. Without
 * short windows, that test after each turn (the loop's test and branch, 6 cycles, once per 16
 * chunks). */
#ifndef MF_PAIR_CHUNKS /* (a build's mf_config.h sets its own) */
#define MF_PAIR_CHUNKS 16
#endif
#define MF_PAIR_CH(k) "1" k ":\n\t" MF_PAIR_GROUP "2" k ":\n\t" MF_PAIR_GROUP
#define MF_PAIR_SF(k) "2" k "f + 1, 1" k "f + 1, " /* (a table's entries: n + 1/2 and n from the end) */
#define MF_PAIR_SEQ4 MF_PAIR_CH("00") MF_PAIR_CH("01") MF_PAIR_CH("02") MF_PAIR_CH("03")
#define MF_PAIR_SF4 MF_PAIR_SF("03") MF_PAIR_SF("02") MF_PAIR_SF("01")
#define MF_PAIR_SEQ8 MF_PAIR_SEQ4 MF_PAIR_CH("04") MF_PAIR_CH("05") MF_PAIR_CH("06") MF_PAIR_CH("07")
#define MF_PAIR_SF8 MF_PAIR_SF("07") MF_PAIR_SF("06") MF_PAIR_SF("05") MF_PAIR_SF("04") MF_PAIR_SF4
#if MF_PAIR_CHUNKS == 4
#define MF_PAIR_LOG "3" /* (the table's index: the window's half chunks mod 2 MF_PAIR_CHUNKS) */
#define MF_PAIR_SEQ MF_PAIR_SEQ4
#define MF_PAIR_ROW MF_PAIR_SF4
#elif MF_PAIR_CHUNKS == 8
#define MF_PAIR_LOG "4"
#define MF_PAIR_SEQ MF_PAIR_SEQ8
#define MF_PAIR_ROW MF_PAIR_SF8
#elif MF_PAIR_CHUNKS == 16
#define MF_PAIR_LOG "5"
#define MF_PAIR_SEQ                                                                             \
    MF_PAIR_SEQ8 MF_PAIR_CH("08") MF_PAIR_CH("09") MF_PAIR_CH("10") MF_PAIR_CH("11")            \
    MF_PAIR_CH("12") MF_PAIR_CH("13") MF_PAIR_CH("14") MF_PAIR_CH("15")
#define MF_PAIR_ROW                                                                             \
    MF_PAIR_SF("15") MF_PAIR_SF("14") MF_PAIR_SF("13") MF_PAIR_SF("12") MF_PAIR_SF("11")        \
    MF_PAIR_SF("10") MF_PAIR_SF("09") MF_PAIR_SF("08") MF_PAIR_SF8
#else
#error "MF_PAIR_CHUNKS: 4, 8 or 16 (lower/fast_gemm.py pair_chunks)"
#endif
#define MF_PAIR_U MF_PAIR_STR(MF_PAIR_CHUNKS)
#if MF_PAIR_CHUNKS < 16
/* A build of fewer unrolled chunks has no window over them (pair_chunks: its largest's, up to a
 * power of two): every block runs its chunks once and goes on to its tail, no turns, no test. */
#define MF_PAIR_LONG_ENTRY
#define MF_PAIR_TURN_TEST
#define MF_PAIR_TURN_END
#define MF_PAIR_RUN_BYTES
#define MF_PAIR_RUN_LONG
#elif MF_PAIR_SHORT
#define MF_PAIR_LONG_ENTRY                                                                      \
    "sub %[y], %[y], #(32 * " MF_PAIR_U ")\n\t"                                                \
    "str %[y], [sp, #24]\n\t" /* the last turn's start */                                     \
    "rsbs %[y], %[t], #(32 * " MF_PAIR_U ")\n\t" /* (N: a window over the chunks) */
#define MF_PAIR_TURN_TEST                                                                       \
    "20:\n\t" /* a long window's next turn: N while another follows */                         \
    "ldr %[x], [sp, #24]\n\t"                                                                  \
    "cmp %[p], %[x]\n\t"
#define MF_PAIR_TURN_END "bmi 20b\n\t"
/* (a run's next pair: N for its first block, the window over the chunks: their bytes less its) */
#define MF_PAIR_RUN_BYTES "sub %[y], %[u], %[p]\n\t"
#define MF_PAIR_RUN_LONG "rsbs %[y], %[y], #(32 * " MF_PAIR_U ")\n\t"
#else
#define MF_PAIR_LONG_ENTRY
#define MF_PAIR_TURN_TEST
#define MF_PAIR_TURN_END "ldr %[x], [sp, #4]\n\tcmp %[p], %[x]\n\tbne 100b\n\t"
#define MF_PAIR_RUN_BYTES
#define MF_PAIR_RUN_LONG
#endif
/* A run's next pair: 8 values of A (at a0) and B (a0 + a1) sign-extended into the buffer's two
 * groups at p (MF_PAIR_WORD's layout, per 4 values of A (word va) and B (vb): b0-b3 in order,
 * which sit in r0-r3 in a build with runs so that one STM stores them, 5 cycles), a0 and p on;
 * the four words' loads in one run (x and t free there). */
#if MF_PAIR_B == 1
#define MF_PAIR_WSX(va, vb) "sxtb16 %[b0], %[" va "]\n\tsxtb16 %[b1], %[" vb "]\n\tsxtb16 %[b2], %[" va "], ror #8\n\tsxtb16 %[b3], %[" vb "], ror #8\n\t"
#else
#define MF_PAIR_WSX(va, vb) "sxtb16 %[b0], %[" va "]\n\tsxtb16 %[b1], %[" va "], ror #8\n\tsxtb16 %[b2], %[" vb "]\n\tsxtb16 %[b3], %[" vb "], ror #8\n\t"
#endif
#define MF_PAIR_WIDEN8                                                                          \
    "ldr %[a2], [%[a0], %[a1]]\n\t"                                                            \
    "ldr %[a3], [%[a0]], #4\n\t"                                                               \
    "ldr %[x], [%[a0], %[a1]]\n\t"                                                             \
    "ldr %[t], [%[a0]], #4\n\t" MF_PAIR_WSX("a3", "a2")                                         \
    "stmia %[p]!, {%[b0], %[b1], %[b2], %[b3]}\n\t" MF_PAIR_WSX("t", "x")                       \
    "stmia %[p]!, {%[b0], %[b1], %[b2], %[b3]}\n\t"
/* A run's pairs (mf_pair_run; MF_PAIR_RUNS): the run's pointer kept in the frame ([20]), tested
 * after the last block, where a next pair is sign-extended into the buffer and its blocks begin
 * (all registers free there). Compiled out in a build without runs. */
#if MF_PAIR_RUNS || MF_PAIR_BUFS
#define MF_PAIR_RUN_SAVE "str %[a0], [sp, #20]\n\t"
#define MF_PAIR_RUN_TEST "ldr %[x], [sp, #20]\n\tcmp %[x], #0\n\tbne 61b\n\t"
/* (61: a run's next pair, x the run, if any: its values sign-extended into the buffer, per 4
 * values of A and B their even and odd int16 pairs in one STM, then its blocks from the
 * stream's start; the run's loads first, in one run) */
#if MF_PAIR_B == 1 /* (the M7: fewer instructions) */
#define MF_PAIR_RUN_LOADS                                                                       \
    "ldr %[y], [%[x], #8]\n\t"                                                                  \
    "ldrd %[a0], %[a1], [%[x], #0]\n\t"                                                         \
    "ldr %[w], [%[x], #12]\n\t"                                                                 \
    "ldr %[a3], [%[x], #16]\n\t"                                                                \
    "ldr %[t], [sp, #8]\n\t"                                                                    \
    "ldrd %[p], %[u], [sp, #0]\n\t" /* the buffer, its end */
#else /* (the M4: single loads, one cycle each in a run; LDRD takes three) */
#define MF_PAIR_RUN_LOADS                                                                       \
    "ldr %[y], [%[x], #8]\n\t"                                                                  \
    "ldr %[a0], [%[x], #0]\n\t"                                                                 \
    "ldr %[a1], [%[x], #4]\n\t"                                                                 \
    "ldr %[w], [%[x], #12]\n\t"                                                                 \
    "ldr %[a3], [%[x], #16]\n\t"                                                                \
    "ldr %[t], [sp, #8]\n\t"                                                                    \
    "ldr %[p], [sp, #0]\n\t" /* the buffer, its end */                                          \
    "ldr %[u], [sp, #4]\n\t"
#endif
/* (58: a run of pairs widened ahead, MF_PAIR_BUFS: x and last NULL, so that a pointwise run's
 * pairs pay no test for it, only its end, whose ends is its one buffer, a few cycles; the last
 * buffer's pair ends the run, else the next's, xb the buffers' bytes apart. The next pair's
 * buffer p on by those, the store pointer by sstep; its end in the frame for the chunk loop's
 * test in a build without short windows, else N (the window over the unrolled chunks) and, if
 * set, the last turn's start, as the prologue's, MF_PAIR_LONG_ENTRY) */
#if MF_PAIR_BUFS
#if MF_PAIR_SHORT
#define MF_PAIR_BUF_LONG                                                                        \
    "rsbs %[y], %[a1], #(32 * " MF_PAIR_U ")\n\t"                                              \
    "bpl 60b\n\t"                                                                               \
    "add %[x], %[p], %[a1]\n\t"                                                                 \
    "sub %[x], %[x], #(32 * " MF_PAIR_U ")\n\t"                                                \
    "str %[x], [sp, #24]\n\t"
#else
#define MF_PAIR_BUF_LONG "add %[u], %[u], %[a1]\n\tstr %[u], [sp, #4]\n\t"
#endif
#define MF_PAIR_BUF_NEXT                                                                        \
    "58:\n\t"                                                                                   \
    "ldr %[y], [%[x], #20]\n\t"                                                                 \
    "cmp %[p], %[y]\n\t"                                                                        \
    "beq 59f\n\t"                                                                               \
    "add %[p], %[p], %[a1]\n\t"                                                                 \
    "add %[t], %[t], %[a3]\n\t"                                                                 \
    "str %[p], [sp, #0]\n\t"                                                                    \
    "str %[t], [sp, #8]\n\t" MF_PAIR_BUF_LONG                                                    \
    "b 60b\n\t"
#define MF_PAIR_RUN_END "beq 58f\n\t"
#else
#define MF_PAIR_BUF_NEXT
#define MF_PAIR_RUN_END "beq 59f\n\t"
#endif
#if MF_PAIR_RUNS
#define MF_PAIR_RUN_PAIRS                                                                       \
    "cmp %[a0], %[y]\n\t"                                                                       \
    MF_PAIR_RUN_END                                                                             \
    "add %[a0], %[a0], %[a1], lsl #1\n\t" /* A's values, B's at a0 + a1 */                      \
    "add %[t], %[t], %[a3]\n\t"   /* the store pointer */                                       \
    "str %[a0], [%[x], #0]\n\t"                                                                 \
    "str %[t], [sp, #8]\n\t"                                                                    \
    MF_PAIR_RUN_BYTES                                                                           \
    "62:\n\t" MF_PAIR_WIDEN8                                                                     \
    "cmp %[p], %[u]\n\t"                                                                        \
    "bne 62b\n\t"                                                                               \
    MF_PAIR_RUN_LONG                                                                            \
    "b 60b\n\t"
#else
#define MF_PAIR_RUN_PAIRS
#endif
#define MF_PAIR_RUN_NEXT "61:\n\t" MF_PAIR_RUN_LOADS MF_PAIR_RUN_PAIRS MF_PAIR_BUF_NEXT
#else
#define MF_PAIR_RUN_SAVE
#define MF_PAIR_RUN_TEST
#define MF_PAIR_RUN_NEXT
#endif
/* The context's words (mf_pair_run's prologue): the window, its end, A's store, B's distance, the
 * stream. */
#if MF_PAIR_B == 1 /* (the M7: fewer instructions) */
#define MF_PAIR_CTX_LOADS                                                                       \
    "ldrd %[x], %[y], [%[p], #0]\n\t"                                                           \
    "ldrd %[t], %[u], [%[p], #8]\n\t"                                                           \
    "ldr %[w], [%[p], #16]\n\t"
#else /* (the M4: single loads, one cycle each in a run; LDRD takes three) */
#define MF_PAIR_CTX_LOADS                                                                       \
    "ldr %[x], [%[p], #0]\n\t"                                                                  \
    "ldr %[y], [%[p], #4]\n\t"                                                                  \
    "ldr %[t], [%[p], #8]\n\t"                                                                  \
    "ldr %[u], [%[p], #12]\n\t"                                                                 \
    "ldr %[w], [%[p], #16]\n\t"
#endif
/* Requantize an even channel of both pixels (accumulators a, b, already shifted left by 1) by
 * the stream's mult m, round r, right shift s (registers loaded ahead, in as few runs of loads as
 * the free registers allow): mf_fast_scale, SMMLAR's rounded high word plus r, then x's sign (the
 * ties of TFLite's rounding away from zero), shifted right; tmp a temporary, r takes B's value.
 * An odd channel (MF_PAIR_RQO) takes its accumulators as they leave the mixed sums, 256 times the
 * channel's (a1 - a0, not shifted), and its round as pair_stream stores it, 128 r + 64: SMMLA's
 * truncated high word of 256 acc m plus that, over 128, is SMMLAR's of 2 acc m plus r (the same
 * numerator, 2^39 over it), so no shift of the accumulator. Without ties (MF_PAIR_TIES 0: every
 * call's output zero point is -128, lower/fast_gemm.py pair_ties), a negative accumulator's value
 * is at most -128 either way and SSAT makes it -128: no sign term, no temporary, and the odd
 * channel's division by 128 goes into SSAT's shift (floor(floor(v / 2^s) / 128) = floor(v /
 * 2^(s + 7))): 6 instructions a channel, not 8 and 10. */
#if MF_PAIR_TIES
/* Both pixels' scaled values (tmp: A's, r: B's) plus their accumulators' signs, shifted right by
 * s and saturated into a, b. */
#define MF_PAIR_TIES_TAIL(a, b, r, s, tmp)                                   \
    "add %[" tmp "], %[" tmp "], %[" a "], asr #31\n\t"                    \
    "add %[" r "], %[" r "], %[" b "], asr #31\n\t"                        \
    "asr %[" tmp "], %[" tmp "], %[" s "]\n\t"                             \
    "asr %[" r "], %[" r "], %[" s "]\n\t"                                 \
    "ssat %[" a "], #8, %[" tmp "]\n\t"                                    \
    "ssat %[" b "], #8, %[" r "]\n\t"
#define MF_PAIR_RQ(a, b, m, r, s, tmp)                                       \
    "smmlar %[" tmp "], %[" a "], %[" m "], %[" r "]\n\t"                  \
    "smmlar %[" r "], %[" b "], %[" m "], %[" r "]\n\t"                    \
    MF_PAIR_TIES_TAIL(a, b, r, s, tmp)
#define MF_PAIR_RQO(a, b, m, r, s, tmp)                                      \
    "smmla %[" tmp "], %[" a "], %[" m "], %[" r "]\n\t"                   \
    "smmla %[" r "], %[" b "], %[" m "], %[" r "]\n\t"                     \
    "asr %[" tmp "], %[" tmp "], #7\n\t"                                   \
    "asr %[" r "], %[" r "], #7\n\t"                                       \
    MF_PAIR_TIES_TAIL(a, b, r, s, tmp)
#else
#if MF_PAIR_FIX
/* An even channel in pair_fix's form: the accumulators shifted left by the channel's k (s's
 * byte), SMMLA's high word plus R, then SSAT's immediate shift: 3 instructions a value, not the
 * shift by 1, SMMLAR's rounding and a shift by register. */
#define MF_PAIR_RQ(a, b, m, r, s, tmp)                                       \
    "lsl %[" a "], %[" a "], %[" s "]\n\t"                                 \
    "lsl %[" b "], %[" b "], %[" s "]\n\t"                                 \
    "smmla %[" a "], %[" a "], %[" m "], %[" r "]\n\t"                     \
    "smmla %[" b "], %[" b "], %[" m "], %[" r "]\n\t"                     \
    "ssat %[" a "], #8, %[" a "], asr #" MF_PAIR_STR(MF_PAIR_FIX) "\n\t"   \
    "ssat %[" b "], #8, %[" b "], asr #" MF_PAIR_STR(MF_PAIR_FIX) "\n\t"
#else
#define MF_PAIR_RQ(a, b, m, r, s, tmp)                                       \
    "smmlar %[" a "], %[" a "], %[" m "], %[" r "]\n\t"                    \
    "smmlar %[" b "], %[" b "], %[" m "], %[" r "]\n\t"                    \
    "asr %[" a "], %[" a "], %[" s "]\n\t"                                 \
    "asr %[" b "], %[" b "], %[" s "]\n\t"                                 \
    "ssat %[" a "], #8, %[" a "]\n\t"                                      \
    "ssat %[" b "], #8, %[" b "]\n\t"
#endif
#define MF_PAIR_RQO(a, b, m, r, s, tmp)                                      \
    "smmla %[" a "], %[" a "], %[" m "], %[" r "]\n\t"                     \
    "smmla %[" b "], %[" b "], %[" m "], %[" r "]\n\t"                     \
    "asr %[" a "], %[" a "], %[" s "]\n\t"                                 \
    "asr %[" b "], %[" b "], %[" s "]\n\t"                                 \
    "ssat %[" a "], #8, %[" a "], asr #7\n\t"                              \
    "ssat %[" b "], #8, %[" b "], asr #7\n\t"
#endif
/* The even channels' accumulators doubled (TFLite's doubling high multiply), but for the fixed
 * form, whose MF_PAIR_RQ shifts them by their own k. */
#if MF_PAIR_FIX
#define MF_PAIR_DOUBLE
#else
#define MF_PAIR_DOUBLE                                                         \
    "lsl %[a0], %[a0], #1\n\t"                                               \
    "lsl %[b0], %[b0], #1\n\t"                                               \
    "lsl %[a2], %[a2], #1\n\t"                                               \
    "lsl %[b2], %[b2], #1\n\t"
#endif
/* A block's table (pair_stream: per channel mult and round, then the right shifts packed two to
 * a word, the even channel's in bits 0-7, the odd one's in 9-16, the second word with the flags
 * MF_PAIR_LAST, bit 8, and MF_PAIR_LONG, bit 31) into registers and the block's four channels of
 * both pixels requantized and packed, A's in a0, B's in b0, the flags in C and N: the ASRS by 9
 * that gives channel 3's shift shifts bit 8 out into C and keeps bit 31 in N (nothing after it
 * sets the flags, SSAT sets only Q: the BCS after the stores, the next block's BMI after its
 * chunks read them). ASR takes a shift register's low byte only, so a packed word serves its
 * first channel as it is and its second once shifted right by 9: a register fewer,
 * so that the 10 words (not 12) load in two runs (five and five, 12 cycles) where no temporary is
 * needed (the table's loads cost one cycle each in a run and one more per run). With ties (a
 * temporary, p) three runs: four, two, then four into the registers channel 1's values, packed,
 * leave. */
#if MF_PAIR_TIES
#define MF_PAIR_TABLE                                                          \
    "ldr %[x], [%[w]], #40\n\t"                                               \
    "ldr %[y], [%[w], #-36]\n\t"                                              \
    "ldr %[t], [%[w], #-8]\n\t"                                               \
    "ldr %[u], [%[w], #-32]\n\t"                                              \
    MF_PAIR_RQ("a0", "b0", "x", "y", "t", "p")                                 \
    "ldr %[x], [%[w], #-28]\n\t"                                              \
    "ldr %[y], [%[w], #-24]\n\t"                                              \
    "lsr %[t], %[t], #9\n\t"                                                  \
    MF_PAIR_RQO("a1", "b1", "u", "x", "t", "p")                                \
    "bfi %[a0], %[a1], #8, #8\n\t"                                            \
    "bfi %[b0], %[b1], #8, #8\n\t"                                            \
    "ldr %[x], [%[w], #-20]\n\t"                                              \
    "ldr %[t], [%[w], #-4]\n\t"                                               \
    "ldr %[u], [%[w], #-16]\n\t"                                              \
    "ldr %[a1], [%[w], #-12]\n\t"                                             \
    MF_PAIR_RQ("a2", "b2", "y", "x", "t", "p")                                 \
    "asrs %[t], %[t], #9\n\t"                                                 \
    MF_PAIR_RQO("a3", "b3", "u", "a1", "t", "p")
#else
#define MF_PAIR_TABLE                                                          \
    "ldr %[x], [%[w]], #40\n\t"                                               \
    "ldr %[y], [%[w], #-36]\n\t"                                              \
    "ldr %[t], [%[w], #-8]\n\t"                                               \
    "ldr %[u], [%[w], #-32]\n\t"                                              \
    "ldr %[p], [%[w], #-28]\n\t"                                              \
    MF_PAIR_RQ("a0", "b0", "x", "y", "t", "")                                  \
    "lsr %[t], %[t], #9\n\t"                                                  \
    MF_PAIR_RQO("a1", "b1", "u", "p", "t", "")                                 \
    "bfi %[a0], %[a1], #8, #8\n\t"                                            \
    "bfi %[b0], %[b1], #8, #8\n\t"                                            \
    "ldr %[x], [%[w], #-24]\n\t"                                              \
    "ldr %[y], [%[w], #-20]\n\t"                                              \
    "ldr %[t], [%[w], #-4]\n\t"                                               \
    "ldr %[u], [%[w], #-16]\n\t"                                              \
    "ldr %[p], [%[w], #-12]\n\t"                                              \
    MF_PAIR_RQ("a2", "b2", "x", "y", "t", "")                                  \
    "asrs %[t], %[t], #9\n\t"                                                 \
    MF_PAIR_RQO("a3", "b3", "u", "p", "t", "")
#endif
#endif /* MF_ASM_LOOPS */

#if !MF_ASM_LOOPS
/* The odd channel's int16 pair of mixed weight word m (lanes 256 w' + w, lower/fast_gemm.py
 * pair_weights) whose even channel's pair is e: each lane less e's, over 256 (exact). */
MF_INLINE uint32_t mf_pair_odd(uint32_t m, uint32_t e)
{
    const int32_t lo = (int32_t)(int16_t)(uint16_t)(m & 0xFFFFu) - (int32_t)(int16_t)(uint16_t)(e & 0xFFFFu);
    const int32_t hi = (int32_t)(int16_t)(uint16_t)(m >> 16) - (int32_t)(int16_t)(uint16_t)(e >> 16);
    return ((uint32_t)(lo / 256) & 0xFFFFu) | (((uint32_t)(hi / 256) & 0xFFFFu) << 16);
}

/* An even channel in lower/fast_gemm.py pair_fix's form (MF_PAIR_FIX): acc shifted left by k,
 * times mult, plus round 2^32, over 2^(32 + MF_PAIR_FIX) (the assembly's LSL, SMMLA, SSAT). */
MF_INLINE int32_t mf_pair_fixed(int32_t acc, int32_t mult, int32_t round, int32_t k)
{
    const int64_t x = (int64_t)(int32_t)((uint32_t)acc << k) * mult + (int64_t)round * 4294967296LL;
    return (int32_t)(x >> 32) >> MF_PAIR_FIX;
}
#endif

/* The flags in a block's second shift word (pair_stream: channel 2's right shift in bits 0-7,
 * channel 3's in 9-16), where MF_PAIR_TABLE's ASRS by 9 moves them into C and N. */
#define MF_PAIR_LAST 0x100u      /* bit 8: the last block's (C) */
#define MF_PAIR_LONG 0x80000000u /* bit 31: every block's of a window over 16 chunks (N) */

/* Every block of four channels of a pixel pair (c->wide), walking the stream c->w: eight
 * accumulators (both pixels' four channels) start at the block's biases, take one pass over the
 * window's chunks, the odd channels are taken out of their mixed sums, all are requantized by the
 * block's table, and each pixel's four values are stored as one word, B's (at c->sta + c->delta)
 * first, then A's (c->sta), the block's 4 bytes on. At least one chunk. With a run r (not NULL:
 * pointwise pairs, c->delta != 0, whole blocks stored straight), the run's next pairs follow
 * (up to r->last) without returning: each sign-extends its two pixels' values into the buffer and takes the
 * blocks again (no call, no prologue per pair). */
MF_HELPER void mf_pair_run(const mf_pair_ctx *c, mf_pair_next *r)
{
#if MF_ASM_LOOPS
    /* All 14 registers in the loop: the context is copied into a frame below the stack pointer
     * ([0] the window, [4] its end, [8] A's next store, [12] B's distance, [16] where a block's
     * chunks start: the chunk loop's entry for the count mod 4, or the lone pixel's loop; [20]
     * the run, [24] the last turn's start, MF_PAIR_LONG_ENTRY); the
     * stream pointer w runs on from block to block. A block's biases (into
     * both pixels' accumulators), the window and the jump to its chunks are one run of loads at
     * the end of the previous block. */
    int32_t a0, a1, a2, a3;
#if MF_PAIR_RUNS /* (MF_PAIR_WIDEN8's STM) */
    register int32_t b0 __asm__("r0"), b1 __asm__("r1"), b2 __asm__("r2"), b3 __asm__("r3");
#else
    int32_t b0, b1, b2, b3;
#endif
    const uint32_t *p = (const uint32_t *)(const void *)c, *w; /* first the context */
    uint32_t x, y, t, u;
    a0 = (int32_t)(intptr_t)r; /* ([20] in the frame) */
    __asm__ volatile(
        "sub sp, sp, #32\n\t"
        MF_PAIR_CTX_LOADS
        MF_PAIR_RUN_SAVE
        "strd %[x], %[y], [sp, #0]\n\t"
        "strd %[t], %[u], [sp, #8]\n\t"
        /* [16]: the chunks entered at the count from the end (MF_PAIR_SEQ), each block ending
         * at MF_PAIR_TURN_END; a lone pixel's two a turn, 41 for an even count, 42 for an odd
         * one (through 43, 44: its end first), its row after the pairs' (46, 45: a first chunk's
         * second group, 91-92). From the table at 9 by the window's half chunks mod twice the
         * unrolled chunks (the lone pixel's mod 4, which takes no notice of N), then
         * MF_PAIR_LONG_ENTRY. */
        "sub %[t], %[y], %[x]\n\t"
        "ubfx %[x], %[t], #4, #" MF_PAIR_LOG "\n\t"
        "cmp %[u], #0\n\t"
        "itt eq\n\t"
        "andeq %[x], %[x], #3\n\t"
        "addeq %[x], %[x], #(2 * " MF_PAIR_U ")\n\t"
        MF_PAIR_LONG_ENTRY
        "adr %[t], 9f\n\t"
        "ldr %[t], [%[t], %[x], lsl #2]\n\t"
        "str %[t], [sp, #16]\n\t"
        "b 60f\n\t"
        ".p2align 2\n"
        "9:\n\t" /* (Thumb addresses) */
        ".word 100f + 1, " MF_PAIR_ROW "200f + 1\n\t"
        ".word 43f + 1, 46f + 1, 44f + 1, 45f + 1\n\t"
        MF_PAIR_TURN_TEST
        MF_PAIR_SEQ
        MF_PAIR_TURN_END
        "30:\n\t" /* the odd channels taken out of their mixed sums (256 acc: that less the even
                     * one's), the even ones shifted left by 1, all eight requantized */
        "sub %[a1], %[a1], %[a0]\n\t"
        "sub %[b1], %[b1], %[b0]\n\t"
        "sub %[a3], %[a3], %[a2]\n\t"
        "sub %[b3], %[b3], %[b2]\n\t"
        MF_PAIR_DOUBLE
        MF_PAIR_TABLE
        "bfi %[a0], %[a2], #16, #8\n\t"
        "bfi %[b0], %[b2], #16, #8\n\t"
        "bfi %[a0], %[a3], #24, #8\n\t"
        "bfi %[b0], %[b3], #24, #8\n\t"
        "ldr %[x], [sp, #8]\n\t" /* A's store, B's distance; B's first */
        "ldr %[y], [sp, #12]\n\t"
        "str %[b0], [%[x], %[y]]\n\t"
        "str %[a0], [%[x]], #4\n\t"
        "str %[x], [sp, #8]\n\t"
        "bcs 50f\n\t" /* (C: MF_PAIR_LAST, from MF_PAIR_TABLE's ASRS) */
        "60:\n\t" /* the next block's biases, the window; to its chunks */
        "ldr %[a0], [%[w]], #16\n\t"
        "ldr %[a1], [%[w], #-12]\n\t"
        "ldr %[a2], [%[w], #-8]\n\t"
        "ldr %[a3], [%[w], #-4]\n\t"
        "ldr %[b0], [%[w], #-16]\n\t"
        "ldr %[b1], [%[w], #-12]\n\t"
        "ldr %[b2], [%[w], #-8]\n\t"
        "ldr %[b3], [%[w], #-4]\n\t"
        "ldr %[p], [sp, #0]\n\t"
        "ldr pc, [sp, #16]\n\t"
        "43:\n\t" /* pixel A alone, two chunks a turn (x: the window's end); then B's values are A's */
        "ldr %[x], [sp, #4]\n\t"
        "41:\n\t"
        MF_PAIR_LONE "91:\n\t" MF_PAIR_LONE
        "42:\n\t" MF_PAIR_LONE "92:\n\t" MF_PAIR_LONE
        "cmp %[p], %[x]\n\t"
        "bne 41b\n\t"
        "mov %[b0], %[a0]\n\t"
        "mov %[b1], %[a1]\n\t"
        "mov %[b2], %[a2]\n\t"
        "mov %[b3], %[a3]\n\t"
        "b 30b\n\t"
        "44:\n\t"
        "ldr %[x], [sp, #4]\n\t"
        "b 42b\n\t"
        "45:\n\t"
        "ldr %[x], [sp, #4]\n\t"
        "b 91b\n\t"
        "46:\n\t"
        "ldr %[x], [sp, #4]\n\t"
        "b 92b\n\t"
        MF_PAIR_RUN_NEXT
        "50:\n\t" /* the last block: the end, or a run's next pair */
        MF_PAIR_RUN_TEST
        "59:\n\t"
        "add sp, sp, #32\n\t"
        : [a0] "+r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [b0] "=&r"(b0), [b1] "=&r"(b1),
          [b2] "=&r"(b2), [b3] "=&r"(b3), [p] "+r"(p), [w] "=&r"(w), [x] "=&r"(x), [y] "=&r"(y),
          [t] "=&r"(t), [u] "=&r"(u)
        :
        : "cc", "memory");
#else
    const uint32_t *wb = c->w, *wide = c->wide, *end = c->end; /* (a run widened ahead moves them) */
    int8_t *sta = c->sta;
    int32_t h, j;
    for (;; sta += 4) {
        const uint32_t *x;
        const int32_t *q;
        int32_t acc[2][4];
        for (j = 0; j < 4; j++) { /* (an odd channel's bias mixed: 256 b + the even one's) */
            acc[0][j] = acc[1][j] = j % 2 == 0 ? (int32_t)wb[j] : (int32_t)(wb[j] - wb[j - 1]) / 256;
        }
        wb += 4;
        for (x = wide; x < end; x += 4, wb += 4) { /* 4 values: A's and B's even and odd words */
            for (h = 0; h < 2; h++) { /* even, odd halves: weights [h][channels 0-1, 2-3] */
                for (j = 0; j < 2; j++) { /* a mixed word's lanes less the even channel's: 256 o */
                    const uint32_t m = wb[2 * h + j], e = mf_sxtb16(m);
                    const uint32_t o = mf_pair_odd(m, e);
                    acc[0][2 * j] = mf_smlad(x[MF_PAIR_WORD(0, 0, h)], e, acc[0][2 * j]);
                    acc[0][2 * j + 1] = mf_smlad(x[MF_PAIR_WORD(0, 0, h)], o, acc[0][2 * j + 1]);
                    if (c->delta != 0) { /* (else B is A) */
                        acc[1][2 * j] = mf_smlad(x[MF_PAIR_WORD(0, 1, h)], e, acc[1][2 * j]);
                        acc[1][2 * j + 1] = mf_smlad(x[MF_PAIR_WORD(0, 1, h)], o, acc[1][2 * j + 1]);
                    }
                }
            }
        }
        if (c->delta == 0) {
            memcpy(acc[1], acc[0], sizeof acc[0]);
        }
        q = (const int32_t *)(const void *)wb; /* per channel mult, round; the right shifts */
        wb += 10;
        for (h = 1; h >= 0; h--) { /* B's four values first, then A's */
            for (j = 0; j < 4; j++) {
                const int32_t rshift = (int32_t)((uint32_t)q[8 + j / 2] >> (9 * (j % 2))) & 0xFF;
                const int32_t rnd = j % 2 == 0 ? q[2 * j + 1] : q[2 * j + 1] >> 7; /* (odd: 128 r + 64) */
                sta[h * c->delta + j] = (int8_t)mf_ssat8(
                    MF_PAIR_FIX && j % 2 == 0 ? mf_pair_fixed(acc[h][j], q[2 * j], q[2 * j + 1], rshift)
                                              : mf_fast_scale(acc[h][j], c->lshift, q[2 * j], rnd, rshift));
            }
        }
        if ((uint32_t)q[9] & MF_PAIR_LAST) {
            uint32_t *d = (uint32_t *)(uintptr_t)wide;
            const int8_t *xa;
            if (r == NULL) {
                break;
            }
#if MF_PAIR_BUFS
            if (r->x == NULL) { /* widened ahead: the next buffer, as long, after this one */
                if (wide == r->ends) {
                    break;
                }
                wide += r->xb / 4, end += r->xb / 4;
                wb = r->w, sta += r->sstep;
                continue;
            }
#endif
            if (r->x == r->last) {
                break;
            }
            r->x += 2 * r->xb; /* a run's next pair, into the buffer */
            for (xa = r->x; d != c->end; d += 4, xa += 4) {
                const uint32_t va = mf_load32(xa), vb = mf_load32(xa + r->xb);
                d[MF_PAIR_WORD(0, 0, 0)] = mf_sxtb16(va);
                d[MF_PAIR_WORD(0, 0, 1)] = mf_sxtb16_ror8(va);
                d[MF_PAIR_WORD(0, 1, 0)] = mf_sxtb16(vb);
                d[MF_PAIR_WORD(0, 1, 1)] = mf_sxtb16_ror8(vb);
            }
            wb = r->w, sta += r->sstep; /* (then the loop's 4 bytes) */
        }
    }
#endif
}

/* One pair's (or a lone pixel's) blocks (mf_pair_run without a run). */
MF_INLINE void mf_pair_blocks(const mf_pair_ctx *c)
{
    mf_pair_run(c, NULL);
}

/* 4 values of pixels A and B (int8 words va, vb) sign-extended into the buffer's group at wide
 * (A's and B's even and odd int16 pairs, MF_PAIR_WORD); returns the next group. The group's four
 * words are consecutive in either layout: one STM stores them (5 cycles; four STR take 8). */
MF_INLINE uint32_t *mf_pair_group(uint32_t va, uint32_t vb, uint32_t *wide)
{
#if MF_ASM_LOOPS /* (STM stores its registers in their numbers' order) */
    register uint32_t w0 __asm__("r0"), w1 __asm__("r1"), w2 __asm__("r2"), w3 __asm__("r3");
#if MF_PAIR_B == 1
    w0 = mf_sxtb16(va), w1 = mf_sxtb16(vb), w2 = mf_sxtb16_ror8(va), w3 = mf_sxtb16_ror8(vb);
#else
    w0 = mf_sxtb16(va), w1 = mf_sxtb16_ror8(va), w2 = mf_sxtb16(vb), w3 = mf_sxtb16_ror8(vb);
#endif
    __asm__ volatile("stmia %[d]!, {%[w0], %[w1], %[w2], %[w3]}"
                     : [d] "+r"(wide)
                     : [w0] "r"(w0), [w1] "r"(w1), [w2] "r"(w2), [w3] "r"(w3)
                     : "memory");
    return wide;
#else
    wide[MF_PAIR_WORD(0, 0, 0)] = mf_sxtb16(va);
    wide[MF_PAIR_WORD(0, 0, 1)] = mf_sxtb16_ror8(va);
    wide[MF_PAIR_WORD(0, 1, 0)] = mf_sxtb16(vb);
    wide[MF_PAIR_WORD(0, 1, 1)] = mf_sxtb16_ror8(vb);
    return wide + 4;
#endif
}

/* Both windows' runs (segments sa from base ba, sb from bb, the same lengths) sign-extended into
 * wide: per 4 values A's and B's even and odd int16 pairs (MF_PAIR_ODD, MF_PAIR_B). */
MF_INLINE void mf_pair_widen(const mf_seg *sa, const int8_t *ba, const mf_seg *sb, const int8_t *bb,
                          int32_t nseg, uint32_t *wide)
{
    int32_t s;
    for (s = 0; s < nseg; s++) {
        const int8_t *xa = (const int8_t *)((uintptr_t)ba + (uintptr_t)sa[s].start);
        const uintptr_t d = (uintptr_t)bb + (uintptr_t)sb[s].start - (uintptr_t)xa; /* B's from A's */
        const uint32_t *const end = wide + 8 * (sa[s].n >> 1); /* (the run's count read once) */
        while (wide != end) { /* a chunk */
            const int8_t *xb = (const int8_t *)((uintptr_t)xa + d);
            wide = mf_pair_group(mf_load32(xa), mf_load32(xb), wide);
            wide = mf_pair_group(mf_load32(xa + 4), mf_load32(xb + 4), wide);
            xa += 8;
        }
    }
}

#if MF_PAIR_WINDOWS /* the windows' readers (a pointwise conv's pixel is one run, read by the loop) */
/* A call's windows: where they are read from, the runs of a window inside the image (relative to
 * its first tap, the same for all of them) and room for a border window's own runs per pixel. */
typedef struct {
    const mf_conv2d_s8_gemm_params *p;
    const int8_t *input;
    uint32_t *wide;                   /* the pair buffer */
    int flat;                         /* pointwise: pixel q's window is the run at q * in_c */
    int32_t lo, hi;                   /* the columns whose windows lie inside the image horizontally */
    int32_t first, vin, at;           /* the last row read: its first pixel, whether its windows lie
                                         inside vertically, and then where column 0's would start */
    int32_t n_inner;
    mf_seg inner[MF_GEMM_SEGMENTS];
    mf_seg own[2][MF_GEMM_SEGMENTS];
} mf_pair_src;

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

/* One pixel's runs sign-extended into its half of the buffer (slot: wide, or wide + MF_PAIR_B
 * for pixel B): per 4 values its even and odd int16 pairs, 4 words apart. For two windows whose runs
 * differ (at the image border). */
static void mf_pair_widen1(const mf_seg *sg, const int8_t *base, int32_t nseg, uint32_t *slot)
{
    int32_t s, k;
    for (s = 0; s < nseg; s++) {
        const int8_t *x = (const int8_t *)((uintptr_t)base + (uintptr_t)sg[s].start);
        for (k = 0; k < sg[s].n; k++, x += 4, slot += 4) { /* 4 values (n counts them / 4) */
            const uint32_t v = mf_load32(x);
            slot[0] = mf_sxtb16(v);
            slot[MF_PAIR_WORD(0, 0, 1)] = mf_sxtb16_ror8(v);
        }
    }
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

/* Pixels q and r (r < 0: q alone, read twice) sign-extended into the pair buffer from their
 * windows' segments: in lockstep when their runs match, else each into its half. A flat call's
 * window is the one inner run at q * in_c (no per-pixel window). Two pixels of a row whose
 * windows lie inside the image share the inner runs too, from their first taps (the row's
 * position kept from the pair before: no division, no mf_pair_window). (Flat pairs come here too
 * in a build with windows, so that the buffer has one writer in lockstep, inlined here.) */
MF_HELPER void mf_pair_read(mf_pair_src *s, int32_t q, int32_t r)
{
    const mf_conv2d_s8_gemm_params *p = s->p;
    const mf_seg *sa = s->inner, *sb = s->inner;
    const int8_t *ba = s->input + q * p->in_c, *bb = r < 0 ? ba : s->input + r * p->in_c;
    int32_t na = 1, nb = 1;
    int same = s->flat; /* the runs of both windows alike (in lockstep) */
    if (!s->flat) {
        const int32_t d = r < 0 ? 0 : r - q; /* B's column from A's, in A's row */
        int32_t ox = q - s->first;
        if ((uint32_t)ox >= (uint32_t)p->out_w) { /* a new row */
            const int32_t oy = q / p->out_w % p->out_h, y0 = oy * p->stride_h - p->pad_h;
            s->first = q - q % p->out_w, ox = q - s->first;
            s->vin = y0 >= 0 && y0 + (p->k_h - 1) * p->dilation_h < p->in_h;
            s->at = ((q / (p->out_w * p->out_h)) * p->in_h + y0) * p->in_w * p->in_c - p->pad_w * p->in_c;
        }
        if (s->vin && MF_MIN(ox, ox + d) >= s->lo && MF_MAX(ox, ox + d) <= s->hi) {
            ba = s->input + s->at + ox * p->stride_w * p->in_c, bb = ba + d * p->stride_w * p->in_c;
            na = nb = s->n_inner, same = 1;
        } else {
            na = nb = mf_pair_window(p, s->input, q, s->inner, s->n_inner, s->own[0], &sa, &ba);
            sb = sa, bb = ba;
            if (r >= 0) {
                nb = mf_pair_window(p, s->input, r, s->inner, s->n_inner, s->own[1], &sb, &bb);
            }
            same = mf_pair_same(sa, na, sb, nb);
        }
    }
    if (same) {
        mf_pair_widen(sa, ba, sb, bb, na, s->wide);
    } else {
        mf_pair_widen1(sa, ba, na, s->wide);
        mf_pair_widen1(sb, bb, nb, s->wide + MF_PAIR_WORD(0, 1, 0));
    }
}
#endif /* MF_PAIR_WINDOWS */

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


MF_INLINE void mf_conv2d_s8_pair_body(const mf_conv2d_s8_gemm_params *p, const mf_epilogue_s8 *e,
                                      const mf_fast_addsub *aq, int kind, const int8_t *input,
                                      const int8_t *res, int8_t *output)
{
    const int32_t total = p->batches * p->out_h * p->out_w, in_c = p->in_c, out_c = p->out_c;
    const int32_t step = p->reverse ? -1 : 1;
    uint32_t stage[2][MF_PAIR_OUT_MAX / 4];
    uint32_t wide[MF_PAIR_WIDE];
    /* No epilogue nor clamp, whole blocks: the blocks store straight into the output (both
     * windows are read, into `wide`, before the pair's first store; a lone pixel's blocks as
     * mf_conv2d_s8_gemm's). Otherwise through the stage. B's distance from A, when paired: */
    const int direct = kind == MF_EP_NONE && !p->clamp && out_c % 4 == 0;
    const int32_t delta = direct ? step * out_c : (int32_t)sizeof stage[0];
    /* A 1x1 stride-1 conv without padding ("flat"): pixel q's window is the one run of its in_c
     * bytes at q * in_c (no per-pixel window, no segment lists); a build without other windows
     * (MF_PAIR_WINDOWS 0) reads it here, else mf_pair_read does. */
#if MF_PAIR_WINDOWS
    mf_pair_src src;
#else
    const mf_seg run1 = {0, MF_SEG_N(in_c / 8, 0)}; /* a flat pixel's one run */
#endif
    int run_ok = MF_PAIR_RUNS && direct; /* flat and direct: the pairs can go as one run (mf_pair_run) */
    mf_pair_ctx ctx;
    int32_t k, q = p->reverse ? total - 1 : 0; /* pixel q first, then its partner q + step */
    ctx.wide = wide;
    ctx.end = wide + p->depth;
    ctx.lshift = p->lshift;
    ctx.w = (const uint32_t *)(const void *)p->weights;
    ctx.sta = (int8_t *)stage[0];
#if MF_PAIR_WINDOWS
    src.p = p, src.input = input, src.wide = wide;
    src.flat = p->k_h == 1 && p->k_w == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_h == 0
               && p->pad_w == 0;
    src.inner[0].start = 0, src.inner[0].n = MF_SEG_N(in_c / 8, 0), src.n_inner = 1;
    if (!src.flat) {
        src.n_inner = mf_gemm_segments(p, NULL, 0, 1, src.inner);
    }
    src.lo = (p->pad_w + p->stride_w - 1) / p->stride_w;
    src.hi = p->in_w - p->k_w + p->pad_w < 0 ? -1
             : MF_MIN((p->in_w - p->k_w + p->pad_w) / p->stride_w, p->out_w - 1);
    src.first = -p->out_w - 1, src.vin = 0, src.at = 0;
    run_ok = MF_PAIR_RUNS && direct && src.flat;
#endif
    ctx.delta = delta;
    for (k = total; k > 0; k -= 2, q += 2 * step) { /* k: pixels left */
        if (k == 1) { /* q alone (read twice, B unused) */
            ctx.delta = 0;
        }
#if MF_PAIR_WINDOWS
        mf_pair_read(&src, q, ctx.delta ? q + step : -1);
#else
        {
            const int8_t *x = input + q * in_c;
            mf_pair_widen(&run1, x, &run1, x + (k > 1 ? step * in_c : 0), 1, wide);
        }
#endif
        if (direct) {
            ctx.sta = output + q * out_c;
        }
        if (run_ok && k > 1) { /* pointwise, straight out: this pair and the call's other n
                                  pairs in one run */
            const int32_t n = k / 2 - 1;
            mf_pair_next run;
            run.x = input + q * in_c, run.xb = step * in_c, run.last = run.x + 2 * n * run.xb;
            run.w = ctx.w, run.sstep = 2 * step * out_c - out_c, run.ends = wide; /* (its end, 58) */
            mf_pair_run(&ctx, &run);
            k -= 2 * n, q += 2 * step * n; /* (then the loop's pair) */
            continue;
        }
        mf_pair_blocks(&ctx);
        if (!direct) {
            mf_pair_store(p, e, aq, kind, (const int8_t *)stage[0], res, output, q);
        }
        if (!direct && k > 1) {
            mf_pair_store(p, e, aq, kind, (const int8_t *)stage[1], res, output, q + step);
        }
    }
}

#endif /* MF_CONV2D_S8_PAIR_BODY_H */
