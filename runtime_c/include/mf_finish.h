/* microfuse runtime: the finishing pass of the fast int8 kernels (mf_fast.h): the channels of one
 * unit computed into a stack stage (mf_dot.h, mf_dw_pixel), then clamped, given their epilogue
 * (mf_epilogue.h's steps, or the shortcut rescaling of a residual ADD / SUB, mf_requant.h) and
 * stored element by element.
 *
 * Access order (microfuse/plan/inplace.py): every kernel visits its units (output pixels, or
 * rows for fully-connected) in order, or last to first when `reverse` is 1 (the memory
 * planner's backward runs). Within a unit, a block of four channels reads the unit's window and
 * then stores its four values (mf_fast_blocks, no epilogue); or a stage of up to MF_STAGE_MAX
 * channels is computed into a stack buffer and then finished element by element (clamp,
 * epilogue reading the residual element right before storing the output element), in
 * increasing order, decreasing when reversed (mf_fast_staged). The window is read again after
 * earlier stores of the same unit: the planner's pixel and row units are unstaged. */
#ifndef MF_FINISH_H
#define MF_FINISH_H

#include "mf_dot.h"

#define MF_STAGE_MAX 128  /* output channels staged for the finishing pass (stack) */

/* The epilogue of `kind` on the clamped int8 value v; the residual is read at index i. */
MF_INLINE int32_t mf_fast_ep(const mf_epilogue_s8 *e, const mf_fast_addsub *a, int kind, int32_t v,
                             const int8_t *res, int32_t i)
{
    int32_t sv, sr, o;
    if (kind < MF_EP_ADDQ) {
        return mf_ep_s8(e, kind, v, res, i);
    }
    if (e->pre != NULL) {
        v = e->pre[(uint8_t)v];
    }
    sv = mf_fast_scale(v + e->v_offset, a->v_lshift, a->v_mult, a->v_round, a->v_rshift);
    sr = mf_fast_scale(res[i] + e->r_offset, a->r_lshift, a->r_mult, a->r_round, a->r_rshift);
    o = kind == MF_EP_ADDQ ? sv + sr : kind == MF_EP_SUBQ ? sv - sr : sr - sv;
    o = mf_fast_scale(o, a->o_lshift, a->o_mult, a->o_round, a->o_rshift);
    o = MF_CLAMP(o, e->act_min, e->act_max);
    return e->post != NULL ? e->post[(uint8_t)o] : o;
}

#if MF_ASM_LOOPS
/* An ADD whose output is one linear function of its two int8 inputs (lower/fast.py _addq_linear
 * checks it on every pair: TFLite's roundings never reach an integer boundary):
 *     out = ssat8((c + SMMLA(v << 24, a) + SMMLA(r << 24, b)) >> 21)
 * five ALU steps an element, two elements a step (their four loads, then their two stores:
 * reading ahead of a later-processed element is allowed, plan/inplace.py). */
#define MF_AQ_CALC(v, r)                           \
    "lsl %[" v "], %[" v "], #24\n\t"              \
    "smmla %[" v "], %[" v "], %[a], %[c]\n\t"     \
    "lsl %[" r "], %[" r "], #24\n\t"              \
    "smmla %[" v "], %[" r "], %[b], %[" v "]\n\t"
#define MF_AQ_PAIRS(S, R, O)                                                                    \
    "1:\n\t"                                                                                    \
    "ldrsb %[v0], " S "\n\tldrsb %[r0], " R "\n\tldrsb %[v1], " S "\n\tldrsb %[r1], " R "\n\t" \
    MF_AQ_CALC("v0", "r0") MF_AQ_CALC("v1", "r1")                                               \
    "ssat %[v0], #8, %[v0], asr #21\n\t"                                                        \
    "ssat %[v1], #8, %[v1], asr #21\n\t"                                                        \
    "strb %[v0], " O "\n\t"                                                                     \
    "strb %[v1], " O "\n\t"                                                                     \
    "cmp %[js], %[end]\n\t"                                                                     \
    "bne 1b\n\t"
#define MF_AQ_OPERANDS                                                                           \
    : [v0] "=&r"(v0), [r0] "=&r"(r0), [v1] "=&r"(v1), [r1] "=&r"(r1), [js] "+r"(js), [jr] "+r"(jr), \
      [jo] "+r"(jo)                                                                               \
    : [end] "r"(end), [a] "r"(a->lin_v), [b] "r"(a->lin_r), [c] "r"(a->lin_c)                    \
    : "cc", "memory"

/* Elements [lo, hi) of stage and res to out (hi - lo even, >= 2), last to first when reversed. */
MF_INLINE void mf_addq_pairs(const mf_fast_addsub *a, const int8_t *stage, const int8_t *res, int8_t *out,
                             int32_t lo, int32_t hi, int reverse)
{
    const int32_t from = reverse ? hi : lo;
    const int8_t *js = stage + from, *jr = res + from, *end = stage + (reverse ? lo : hi);
    int8_t *jo = out + from;
    int32_t v0, r0, v1, r1;
    if (reverse) {
        __asm__ volatile(MF_AQ_PAIRS("[%[js], #-1]!", "[%[jr], #-1]!", "[%[jo], #-1]!") MF_AQ_OPERANDS);
    } else {
        __asm__ volatile(MF_AQ_PAIRS("[%[js]], #1", "[%[jr]], #1", "[%[jo]], #1") MF_AQ_OPERANDS);
    }
}
#undef MF_AQ_CALC
#undef MF_AQ_PAIRS
#undef MF_AQ_OPERANDS
#endif

/* The finishing pass of a residual ADD / SUB / RSUB with the shortcut rescaling and no tables:
 * stage[j] -> out[j] for j in [0, count), last to first when reversed (count >= 1). An ADD
 * that is linear (and without bounds) runs mf_addq_pairs, its last element here when count is odd. */
MF_HELPER void mf_fast_finish_addsub(const int8_t *stage, int32_t count, int clamp, int32_t lo,
                                     int32_t hi, const mf_epilogue_s8 *e, const mf_fast_addsub *a,
                                     int kind, const int8_t *res, int8_t *out, int reverse)
{
#if MF_MVE
    mf_mve_finish_addsub(stage, count, clamp, lo, hi, e, a, kind, res, out, reverse);
#else
    int32_t j = reverse ? count - 1 : 0, k, n = count;
#if MF_ASM_LOOPS
    if (kind == MF_EP_ADDQ && a->linear != 0 && !clamp && e->act_min == -128 && e->act_max == 127 &&
        count >= 2) {
        const int32_t even = count & ~1;
        mf_addq_pairs(a, stage, res, out, reverse ? count - even : 0, reverse ? count : even, reverse);
        if (even == count) {
            return;
        }
        j = reverse ? 0 : count - 1, n = 1;
    }
#endif
    for (k = 0; k < n; k++, j += reverse ? -1 : 1) {
        int32_t v = stage[j], sv, sr, o;
        if (clamp) {
            v = MF_CLAMP(v, lo, hi);
        }
        sv = mf_fast_scale(v + e->v_offset, a->v_lshift, a->v_mult, a->v_round, a->v_rshift);
        sr = mf_fast_scale(res[j] + e->r_offset, a->r_lshift, a->r_mult, a->r_round, a->r_rshift);
        o = kind == MF_EP_ADDQ ? sv + sr : kind == MF_EP_SUBQ ? sv - sr : sr - sv;
        o = mf_fast_scale(o, a->o_lshift, a->o_mult, a->o_round, a->o_rshift);
        out[j] = (int8_t)MF_CLAMP(o, e->act_min, e->act_max);
    }
#endif
}

/* The finishing pass of a pixel (or row) staged by mf_fast_blocks: clamp, epilogue, store, element
 * by element (last to first when reversed: the residual is then read in decreasing order). */
MF_INLINE void mf_fast_finish(const int8_t *stage, int32_t count, int clamp, int32_t lo, int32_t hi,
                              const mf_epilogue_s8 *e, const mf_fast_addsub *aq, int kind,
                              const int8_t *res, int8_t *out, int32_t first, int reverse)
{
    int32_t k;
    if (kind >= MF_EP_ADDQ && e->pre == NULL && e->post == NULL) {
        mf_fast_finish_addsub(stage, count, clamp, lo, hi, e, aq, kind, res + first, out, reverse);
        return;
    }
#if MF_MVE
    if (kind == MF_EP_NONE) {
        mf_mve_finish_clamp(stage, count, lo, hi, out);
        return;
    }
#endif
    for (k = 0; k < count; k++) {
        const int32_t j = reverse ? count - 1 - k : k;
        int32_t v = stage[j];
        if (clamp) {
            v = MF_CLAMP(v, lo, hi);
        }
        out[j] = (int8_t)mf_fast_ep(e, aq, kind, v, res, first + j);
    }
}

/* mf_fast_blocks through the stage, MF_STAGE_MAX channels at a time (last stage first when
 * reversed), each stage finished (clamp, epilogue) into out[0 .. count): the channels of one
 * pixel (or row), `wstep` weight words per block. A stage's input reads come after the previous
 * stage's stores: the planner's pixel and row units are unstaged. */
MF_INLINE void mf_fast_staged(const mf_seg *segs, int32_t nseg, const int8_t *base, const uint32_t *w,
                              int32_t wstep, const int32_t *qb, int32_t blocks, int32_t lshift,
                              int8_t *stage, int32_t count, int clamp, int32_t lo, int32_t hi,
                              const mf_epilogue_s8 *e, const mf_fast_addsub *aq, int kind,
                              const int8_t *res, int8_t *out, int32_t first, int reverse)
{
    const int32_t per = MF_STAGE_MAX / 4, stages = (blocks + per - 1) / per;
    int32_t si;
    for (si = 0; si < stages; si++) {
        const int32_t st = reverse ? stages - 1 - si : si;
        const int32_t b0 = st * per, nb = MF_MIN(per, blocks - b0), c0 = 4 * b0;
        mf_fast_blocks(segs, nseg, base, w + b0 * wstep, qb + b0 * MF_Q_WORDS, nb, lshift, stage);
        mf_fast_finish(stage, MF_MIN(4 * nb, count - c0), clamp, lo, hi, e, aq, kind, res, out + c0,
                       first + c0, reverse);
    }
}

#endif /* MF_FINISH_H */
