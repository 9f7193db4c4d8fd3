/* microfuse runtime: fast int8 kernels (blocked convolution, depthwise, fully-connected) and the
 * arithmetic they share. None of them uses arena scratch; weights stay int8 in flash.
 *
 * Selected at compile time by microfuse/lower/fast.py when an op fits; the reference kernels
 * (mf_conv2d_s8.c, ...) stay the fallback. On cores with the DSP extension (__ARM_FEATURE_DSP:
 * Cortex-M4/M7/M33/M55) the MACs run on int16 pairs (SMLAD, SMLABB, SMLATT) extended on the fly
 * from int8 words; elsewhere (host gcc, Cortex-M0/M3) the same functions are plain C with the
 * same results.
 *
 * int8 words. A 32-bit load of four int8 values b0 b1 b2 b3 (little-endian) is split by
 *   SXTB16(v) = (b0, b2)   and   SXTB16(v, ROR #8) = (b1, b3)     (int16 pairs, low half first).
 * Activations and weights are split the same way, so for four consecutive depth values
 *   SMLAD(SXTB16(x), SXTB16(w)) + SMLAD(SXTB16(x, ROR 8), SXTB16(w, ROR 8)) = sum x_i w_i,
 * and for one tap of four channels (depthwise: channels innermost)
 *   SMLABB / SMLATT of the even pairs give channels 0 and 2, of the odd pairs channels 1 and 3.
 * The compile-time weight layout (lower/fast.py) only blocks and interleaves the int8 weights
 * so that each loop reads them with post-incremented word loads.
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
 * (mf_fast_addsub, the `addq` table); otherwise it runs mf_epilogue.h's reference steps.
 *
 * Access order (microfuse/plan/inplace.py): every kernel visits its units (output pixels, or
 * rows for fully-connected) in order, or last to first when `reverse` is 1 (the memory
 * planner's backward runs). Within a unit, a block of four channels reads the unit's window and
 * then stores its four values (mf_fast_blocks, no epilogue); or a stage of up to MF_STAGE_MAX
 * channels is computed into a stack buffer and then finished element by element (clamp,
 * epilogue reading the residual element right before storing the output element), in
 * increasing order, decreasing when reversed (mf_fast_staged). The window is read again after
 * earlier stores of the same unit: the planner's pixel and row units are unstaged. */
#ifndef MF_FAST_H
#define MF_FAST_H

#include <string.h>

#include "mf_common.h"
#include "mf_epilogue.h"

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#define MF_DSP 1
#else
#define MF_DSP 0
#endif

/* Helium (MVE integer): mf_fast_mve.h */
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define MF_MVE 1
#else
#define MF_MVE 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MF_INLINE static inline __attribute__((always_inline))
/* Helpers shared by the fast kernels' files: weak, so the linker keeps one copy of each. */
#define MF_HELPER __attribute__((weak, noinline))
#else
#define MF_INLINE static inline
#define MF_HELPER static
#endif

#define MF_GATHER_MAX 160 /* bytes of a gathered window (stack) */
#define MF_STAGE_MAX 128  /* output channels staged for the finishing pass (stack) */

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
 * the value side, the residual side and the output, each as (lshift, mult, round, rshift). */
typedef struct {
    int32_t v_lshift, v_mult, v_round, v_rshift;
    int32_t r_lshift, r_mult, r_round, r_rshift;
    int32_t o_lshift, o_mult, o_round, o_rshift; /* o_round includes the output zero point */
} mf_fast_addsub;

/* ---- int16 pair arithmetic ---- */

MF_INLINE uint32_t mf_load32(const void *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

#if MF_DSP
MF_INLINE uint32_t mf_sxtb16(uint32_t x)
{
    uint32_t r;
    __asm__("sxtb16 %0, %1" : "=r"(r) : "r"(x));
    return r;
}

MF_INLINE uint32_t mf_sxtb16_ror8(uint32_t x)
{
    uint32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
    return r;
}

MF_INLINE int32_t mf_smlad(uint32_t a, uint32_t b, int32_t acc)
{
    int32_t r;
    __asm__("smlad %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
    return r;
}

MF_INLINE int32_t mf_smlabb(uint32_t a, uint32_t b, int32_t acc)
{
    int32_t r;
    __asm__("smlabb %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
    return r;
}

MF_INLINE int32_t mf_smlatt(uint32_t a, uint32_t b, int32_t acc)
{
    int32_t r;
    __asm__("smlatt %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
    return r;
}

MF_INLINE int32_t mf_smmlar(int32_t a, int32_t b, int32_t acc)
{
    int32_t r;
    __asm__("smmlar %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
    return r;
}

MF_INLINE int32_t mf_ssat8(int32_t x)
{
    int32_t r;
    __asm__("ssat %0, #8, %1" : "=r"(r) : "r"(x));
    return r;
}
#else
MF_INLINE int32_t mf_lo16(uint32_t x) { return (int32_t)(int16_t)(uint16_t)(x & 0xFFFFu); }
MF_INLINE int32_t mf_hi16(uint32_t x) { return (int32_t)(int16_t)(uint16_t)(x >> 16); }

MF_INLINE uint32_t mf_pack16(int32_t lo, int32_t hi)
{
    return ((uint32_t)lo & 0xFFFFu) | (((uint32_t)hi & 0xFFFFu) << 16);
}

MF_INLINE uint32_t mf_sxtb16(uint32_t x)
{
    return mf_pack16((int8_t)(uint8_t)(x & 0xFFu), (int8_t)(uint8_t)((x >> 16) & 0xFFu));
}

MF_INLINE uint32_t mf_sxtb16_ror8(uint32_t x)
{
    return mf_pack16((int8_t)(uint8_t)((x >> 8) & 0xFFu), (int8_t)(uint8_t)(x >> 24));
}

MF_INLINE int32_t mf_smlad(uint32_t a, uint32_t b, int32_t acc)
{
    return acc + mf_lo16(a) * mf_lo16(b) + mf_hi16(a) * mf_hi16(b);
}

MF_INLINE int32_t mf_smlabb(uint32_t a, uint32_t b, int32_t acc)
{
    return acc + mf_lo16(a) * mf_lo16(b);
}

MF_INLINE int32_t mf_smlatt(uint32_t a, uint32_t b, int32_t acc)
{
    return acc + mf_hi16(a) * mf_hi16(b);
}

MF_INLINE int32_t mf_smmlar(int32_t a, int32_t b, int32_t acc)
{
    return (int32_t)(((int64_t)a * (int64_t)b + (int64_t)acc * 4294967296LL + 0x80000000LL) >> 32);
}

MF_INLINE int32_t mf_ssat8(int32_t x)
{
    return MF_CLAMP(x, -128, 127);
}
#endif

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

/* The finishing pass of a residual ADD / SUB / RSUB with the shortcut rescaling and no tables:
 * stage[j] -> out[j] for j in [0, count), last to first when reversed (count >= 1). */
MF_HELPER void mf_fast_finish_addsub(const int8_t *stage, int32_t count, int clamp, int32_t lo,
                                     int32_t hi, const mf_epilogue_s8 *e, const mf_fast_addsub *a,
                                     int kind, const int8_t *res, int8_t *out, int reverse)
{
#if MF_MVE
    mf_mve_finish_addsub(stage, count, clamp, lo, hi, e, a, kind, res, out, reverse);
#else
    const int32_t v_off = e->v_offset, r_off = e->r_offset, olo = e->act_min, ohi = e->act_max;
    const int32_t step = reverse ? -1 : 1;
    int32_t j = reverse ? count - 1 : 0, k;
#if MF_DSP && defined(__GNUC__)
    if (kind == MF_EP_ADDQ && !clamp && olo == -128 && ohi == 127) {
        /* 31 instructions per element: both rescalings, the sum, the output's, saturation. */
        int32_t v, r, t1, t2, t3, n = count;
        __asm__ volatile(
            "1:\n\t"
            "ldrsb %[v], [%[s], %[j]]\n\t"
            "ldrsb %[r], [%[rp], %[j]]\n\t"
            "add %[v], %[v], %[voff]\n\t"
            "add %[r], %[r], %[roff]\n\t"
            "ldrd %[t1], %[t2], [%[a], #0]\n\t"
            "ldr %[t3], [%[a], #8]\n\t"
            "lsl %[v], %[v], %[t1]\n\t"
            "smmlar %[t3], %[v], %[t2], %[t3]\n\t"
            "add %[t3], %[t3], %[v], asr #31\n\t"
            "ldr %[t1], [%[a], #12]\n\t"
            "asr %[v], %[t3], %[t1]\n\t"
            "ldrd %[t1], %[t2], [%[a], #16]\n\t"
            "ldr %[t3], [%[a], #24]\n\t"
            "lsl %[r], %[r], %[t1]\n\t"
            "smmlar %[t3], %[r], %[t2], %[t3]\n\t"
            "add %[t3], %[t3], %[r], asr #31\n\t"
            "ldr %[t1], [%[a], #28]\n\t"
            "asr %[r], %[t3], %[t1]\n\t"
            "add %[v], %[v], %[r]\n\t"
            "ldrd %[t1], %[t2], [%[a], #32]\n\t"
            "ldr %[t3], [%[a], #40]\n\t"
            "lsl %[v], %[v], %[t1]\n\t"
            "smmlar %[t3], %[v], %[t2], %[t3]\n\t"
            "add %[t3], %[t3], %[v], asr #31\n\t"
            "ldr %[t1], [%[a], #44]\n\t"
            "asr %[v], %[t3], %[t1]\n\t"
            "ssat %[v], #8, %[v]\n\t"
            "strb %[v], [%[o], %[j]]\n\t"
            "add %[j], %[j], %[step]\n\t"
            "subs %[n], %[n], #1\n\t"
            "bne 1b\n\t"
            : [v] "=&r"(v), [r] "=&r"(r), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
              [j] "+r"(j), [n] "+r"(n)
            : [s] "r"(stage), [rp] "r"(res), [o] "r"(out), [a] "r"(a), [voff] "r"(v_off),
              [roff] "r"(r_off), [step] "r"(step)
            : "cc", "memory");
        return;
    }
#endif
    for (k = 0; k < count; k++, j += step) {
        int32_t v = stage[j], sv, sr, o;
        if (clamp) {
            v = MF_CLAMP(v, lo, hi);
        }
        sv = mf_fast_scale(v + v_off, a->v_lshift, a->v_mult, a->v_round, a->v_rshift);
        sr = mf_fast_scale(res[j] + r_off, a->r_lshift, a->r_mult, a->r_round, a->r_rshift);
        o = kind == MF_EP_ADDQ ? sv + sr : kind == MF_EP_SUBQ ? sv - sr : sr - sv;
        o = mf_fast_scale(o, a->o_lshift, a->o_mult, a->o_round, a->o_rshift);
        out[j] = (int8_t)MF_CLAMP(o, olo, ohi);
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

/* ---- the blocked dot product of convolution and fully-connected ---- */

#if MF_DSP && defined(__GNUC__)
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

/* The `blocks` blocks of four channels of one output pixel (or row): per block the dot products
 * of the segments (each starting at base + start) with the block's weights (consecutive from
 * w), requantized with table block qb (consecutive) and saturated to int8, stored at
 * dst[0 .. 4 blocks). Every segment has at least one chunk; blocks >= 1. The weights of a
 * segment: its 4-value chunk, then its 8-value chunks, each [4 channels][chunk]. */
MF_HELPER void mf_fast_blocks(const mf_seg *segs, int32_t nseg, const int8_t *base, const uint32_t *w,
                              const int32_t *qb, int32_t blocks, int32_t lshift, int8_t *dst)
{
#if MF_MVE
    mf_fast_blocks_mve(segs, nseg, base, w, qb, blocks, lshift, dst);
#elif MF_DSP && defined(__GNUC__)
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

/* ---- kernels ---- */

/* CONV_2D: per output pixel, four output channels at a time, each a dot product over the window
 * read straight from the input (window rows as runs, or tap by tap at the image border, taps
 * outside the image read from `zrow`; at most 16 runs); input channels not a multiple of 4 are
 * gathered first into a stack buffer of MF_GATHER_MAX bytes. */
typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_h, pad_w;
    int32_t depth;          /* weight bytes per channel: k_h*k_w*in_c, or the gathered window
                               rounded up to a multiple of 8 when in_c % 4 != 0 */
    int32_t in_zero_point;  /* value of taps outside the image */
    int32_t act_min, act_max;
    int32_t clamp;          /* 1: [act_min, act_max] is narrower than int8 */
    int32_t lshift;         /* TFLite's left shift + 1 (the same for every channel) */
    int32_t reverse;        /* 1: pixels last to first (a backward run of the memory plan) */
    const int32_t *weights; /* int8 words [out_c / 4][chunks][4 channels][chunk] */
    const int32_t *quant;   /* channel table [out_c / 4][MF_Q_WORDS] (blocks of 4, see above) */
    const int32_t *zrow;    /* k_w * in_c bytes of the input zero point, or NULL (no padding) */
    const int32_t *addq;    /* mf_fast_addsub of a fused residual ADD / SUB, or NULL */
    int32_t out_stride;     /* elements between output pixels: 0 = out_c (dense); more when the
                               output is a channel slice of a wider tensor (concat) */
} mf_conv2d_s8_gemm_params;

/* DEPTHWISE_CONV_2D (depth multiplier 1, channels a multiple of 4, up to 32 taps): per output
 * pixel, four channels at a time; a tap is one word of input and one of weights, 4 MACs
 * (SMLABB / SMLATT). */
typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_h, pad_w;
    int32_t in_zero_point;
    int32_t act_min, act_max;
    int32_t clamp;          /* 1: [act_min, act_max] is narrower than int8 */
    int32_t lshift;         /* TFLite's left shift + 1 (the same for every channel) */
    int32_t reverse;        /* 1: pixels (and channel groups) last to first */
    const int32_t *weights; /* int8 words [out_c / 4][k_h * k_w][4 channels] */
    const int32_t *quant;   /* channel table [out_c / 4][MF_Q_WORDS] */
    const int32_t *zrow;    /* in_c bytes of the input zero point, or NULL (no padding) */
    const int32_t *addq;    /* mf_fast_addsub of a fused residual ADD / SUB, or NULL */
    int32_t out_stride;     /* elements between output pixels: 0 = out_c (dense) */
} mf_dwconv2d_s8_dsp_params;

/* FULLY_CONNECTED: per input row, four units at a time, each a dot product over the row. */
typedef struct {
    int32_t rows, depth, units;
    int32_t act_min, act_max;
    int32_t clamp;          /* 1: [act_min, act_max] is narrower than int8 */
    int32_t lshift;         /* TFLite's left shift + 1 (the same for every unit) */
    const int32_t *weights; /* int8 words [units / 4][chunks][4 units][chunk] */
    const int32_t *quant;   /* channel table [units / 4][MF_Q_WORDS] */
    const int32_t *addq;    /* mf_fast_addsub of a fused residual ADD / SUB, or NULL */
    int32_t out_stride;     /* elements between output rows: 0 = units (dense) */
} mf_fc_s8_dsp_params;

void mf_conv2d_s8_gemm(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int8_t *output);
void mf_dwconv2d_s8_dsp(const mf_dwconv2d_s8_dsp_params *p, const int8_t *input, int8_t *output);
void mf_fc_s8_dsp(const mf_fc_s8_dsp_params *p, const int8_t *input, int8_t *output);
/* The same kernels writing a channel slice of a wider tensor (out_stride > 0, an eliminated
 * concatenation): separate entry points, so that the dense ones pay nothing for it. */
void mf_conv2d_s8_gemm_strided(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int8_t *output);
void mf_dwconv2d_s8_dsp_strided(const mf_dwconv2d_s8_dsp_params *p, const int8_t *input, int8_t *output);
void mf_fc_s8_dsp_strided(const mf_fc_s8_dsp_params *p, const int8_t *input, int8_t *output);

/* Fused variants (mf_epilogue.h): the plain kernel's params `k` and the epilogue's `ep`; the
 * residual variants read it at the output's index. Chosen by lower/conv.py's pick() like the
 * reference kernels' fused variants (lower/epilogue.py fused_kernels). */
typedef struct { mf_conv2d_s8_gemm_params k; mf_epilogue_s8 ep; } mf_conv2d_s8_gemm_ep_params;
typedef struct { mf_dwconv2d_s8_dsp_params k; mf_epilogue_s8 ep; } mf_dwconv2d_s8_dsp_ep_params;
typedef struct { mf_fc_s8_dsp_params k; mf_epilogue_s8 ep; } mf_fc_s8_dsp_ep_params;

#define MF_DECLARE_FAST_VARIANTS(name, ptype)                                                       \
    void name##_lut(const ptype *p, const int8_t *input, int8_t *output);                           \
    void name##_add(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output);        \
    void name##_sub(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output);        \
    void name##_rsub(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output);       \
    void name##_mul(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output);

MF_DECLARE_FAST_VARIANTS(mf_conv2d_s8_gemm, mf_conv2d_s8_gemm_ep_params)
MF_DECLARE_FAST_VARIANTS(mf_dwconv2d_s8_dsp, mf_dwconv2d_s8_dsp_ep_params)
MF_DECLARE_FAST_VARIANTS(mf_fc_s8_dsp, mf_fc_s8_dsp_ep_params)
MF_DECLARE_FAST_VARIANTS(mf_conv2d_s8_gemm_strided, mf_conv2d_s8_gemm_ep_params)
MF_DECLARE_FAST_VARIANTS(mf_dwconv2d_s8_dsp_strided, mf_dwconv2d_s8_dsp_ep_params)
MF_DECLARE_FAST_VARIANTS(mf_fc_s8_dsp_strided, mf_fc_s8_dsp_ep_params)

/* The fused variants' definitions: `kernel` is the plain kernel's name, `ptype` its _ep_params
 * type, `body(k, e, aq, kind, input, res, output)` its loop. ADD / SUB / RSUB take the shortcut
 * rescaling when the lowering emitted its table (k.addq), the reference steps otherwise. The
 * epilogue is read in place (the finishing pass loads its constants once per stage). */
#define MF_DEFINE_FAST_VARIANTS(kernel, ptype, body)                                                \
    void kernel##_lut(const ptype *p, const int8_t *input, int8_t *output)                          \
    {                                                                                               \
        body(&p->k, &p->ep, NULL, MF_EP_LUT, input, NULL, output);                                  \
    }                                                                                               \
    void kernel##_add(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output)       \
    {                                                                                               \
        const mf_fast_addsub *a = (const mf_fast_addsub *)(const void *)p->k.addq;                  \
        body(&p->k, &p->ep, a, a != NULL ? MF_EP_ADDQ : MF_EP_ADD, input, res, output);             \
    }                                                                                               \
    void kernel##_sub(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output)       \
    {                                                                                               \
        const mf_fast_addsub *a = (const mf_fast_addsub *)(const void *)p->k.addq;                  \
        body(&p->k, &p->ep, a, a != NULL ? MF_EP_SUBQ : MF_EP_SUB, input, res, output);             \
    }                                                                                               \
    void kernel##_rsub(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output)      \
    {                                                                                               \
        const mf_fast_addsub *a = (const mf_fast_addsub *)(const void *)p->k.addq;                  \
        body(&p->k, &p->ep, a, a != NULL ? MF_EP_RSUBQ : MF_EP_RSUB, input, res, output);           \
    }                                                                                               \
    void kernel##_mul(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output)       \
    {                                                                                               \
        body(&p->k, &p->ep, NULL, MF_EP_MUL, input, res, output);                                   \
    }

#endif /* MF_FAST_H */
