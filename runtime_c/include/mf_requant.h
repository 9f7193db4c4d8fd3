/* microfuse runtime: the requantization of the fast int8 kernels (mf_fast.h): the per-channel
 * table, four accumulators at a time, and the shortcut rescaling of a fused residual ADD / SUB.
 *
 * Requantization (mf_fast_requant4, mf_fast_scale). TFLite Micro computes
 *     RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(acc << left, m), right)
 * which, when |acc << (left + 1)| < 2^31 and right >= 1, equals exactly
 *     x = acc << (left + 1)
 *     out = (SMMLAR(x, m, round) + (x >> 31)) >> right
 * with round = 2^(right-1) + out_zero_point << right: SMMLAR adds round to r = (x m + 2^31) >> 32
 * = (acc 2^left m + 2^30) >> 31, the doubling high multiply; the sign of x stands for the sign of
 * r (m >= 0; when r = 0 both give the zero point) in the ties-away-from-zero rounding, and the
 * zero point, a multiple of 2^right, passes the shift unchanged.
 * The lowering proves both conditions per channel from the weights and bias at compile time and
 * checks that r + round cannot overflow; an op where it cannot prove them keeps the reference
 * kernel. A fused residual ADD / SUB uses the same shortcut for its three rescalings when the
 * lowering has checked it against TFLite's arithmetic on every pair of int8 inputs
 * (mf_fast_addsub, the `addq` table); otherwise it runs mf_epilogue.h's reference steps. */
#ifndef MF_REQUANT_H
#define MF_REQUANT_H

#include "mf_epilogue.h"
#include "mf_isa.h"

/* The per-channel table, in blocks of four channels (16 words per block):
 *   bias[4] (input offset folded in), mult[4] (Q31), round[4] (2^(rshift-1) + out_zero_point
 *   * 2^rshift), rshift[4] (TFLite's right shift, >= 1)
 * and one left shift per op (TFLite's left shift + 1, `lshift` in the params). */
#define MF_Q_BIAS 0
#define MF_Q_MULT 4
#define MF_Q_ROUND 8
#define MF_Q_RSHIFT 12
#define MF_Q_WORDS 16

/* A fused residual ADD / SUB with the shortcut requantization (see the top of this file):
 * the value side, the residual side and the output, each as (lshift, mult, round, rshift);
 * then an ADD as one linear function of its two inputs for mf_finish.h's two-element loop
 * (lower/fast.py _addq_linear; linear = 0: none). */
typedef struct {
    int32_t v_lshift, v_mult, v_round, v_rshift;
    int32_t r_lshift, r_mult, r_round, r_rshift;
    int32_t o_lshift, o_mult, o_round, o_rshift; /* o_round includes the output zero point */
    int32_t linear, lin_v, lin_r, lin_c;
} mf_fast_addsub;

/* (x << lshift) * mult rounded, then divided by 2^rshift rounding ties away from zero, plus
 * whatever `rnd` adds beyond 2^(rshift-1) (see the top of this file). */
MF_INLINE int32_t mf_fast_scale(int32_t x, int32_t lshift, int32_t mult, int32_t rnd, int32_t rshift)
{
    const int32_t xs = (int32_t)((uint32_t)x << lshift);
    return (mf_smmlar(xs, mult, rnd) + (xs >> 31)) >> rshift;
}

/* Four accumulators (four channels of one output pixel or row), kept in registers: the helpers
 * below take them by pointer and are always inlined, so no array is ever indexed. */
typedef struct {
    int32_t a0, a1, a2, a3;
} mf_acc4;

/* Initial accumulators of table block qb: their biases. */
MF_INLINE mf_acc4 mf_fast_bias4(const int32_t *qb)
{
    mf_acc4 a;
    a.a0 = qb[0];
    a.a1 = qb[1];
    a.a2 = qb[2];
    a.a3 = qb[3];
    return a;
}

/* Requantize the four accumulators of table block qb (saturated to int8, before the activation's
 * own bounds). */
MF_INLINE void mf_fast_requant4(mf_acc4 *acc, const int32_t *qb, int32_t lshift)
{
#if MF_DSP && defined(__GNUC__)
    int32_t a0 = acc->a0, a1 = acc->a1, a2 = acc->a2, a3 = acc->a3;
    uint32_t m0, m1, r0, r1;
#define MF_RQ2(a, b, off)                                          \
    "ldrd %[m0], %[m1], [%[q], #" #off "]\n\t"                     \
    "ldrd %[r0], %[r1], [%[q], #(" #off " + 16)]\n\t"              \
    "lsl %[" #a "], %[" #a "], %[ls]\n\t"                          \
    "lsl %[" #b "], %[" #b "], %[ls]\n\t"                          \
    "smmlar %[r0], %[" #a "], %[m0], %[r0]\n\t"                    \
    "smmlar %[r1], %[" #b "], %[m1], %[r1]\n\t"                    \
    "add %[r0], %[r0], %[" #a "], asr #31\n\t"                     \
    "add %[r1], %[r1], %[" #b "], asr #31\n\t"                     \
    "ldrd %[m0], %[m1], [%[q], #(" #off " + 32)]\n\t"              \
    "asr %[r0], %[r0], %[m0]\n\t"                                  \
    "asr %[r1], %[r1], %[m1]\n\t"                                  \
    "ssat %[" #a "], #8, %[r0]\n\t"                                \
    "ssat %[" #b "], #8, %[r1]\n\t"
    __asm__(MF_RQ2(a0, a1, 16) MF_RQ2(a2, a3, 24)
            : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [m0] "=&r"(m0),
              [m1] "=&r"(m1), [r0] "=&r"(r0), [r1] "=&r"(r1)
            : [q] "r"(qb), [ls] "r"(lshift));
#undef MF_RQ2
    acc->a0 = a0;
    acc->a1 = a1;
    acc->a2 = a2;
    acc->a3 = a3;
#else
#define MF_RQ1(f, j) \
    acc->f = mf_ssat8(mf_fast_scale(acc->f, lshift, qb[MF_Q_MULT + j], qb[MF_Q_ROUND + j], qb[MF_Q_RSHIFT + j]))
    MF_RQ1(a0, 0);
    MF_RQ1(a1, 1);
    MF_RQ1(a2, 2);
    MF_RQ1(a3, 3);
#undef MF_RQ1
#endif
}

/* Epilogue kinds of the fast kernels beyond mf_epilogue.h's: a residual ADD / SUB / RSUB with the
 * shortcut rescaling (mf_fast_addsub). */
enum { MF_EP_ADDQ = 16, MF_EP_SUBQ, MF_EP_RSUBQ };

#include "mf_fast_mve.h"

#endif /* MF_REQUANT_H */
