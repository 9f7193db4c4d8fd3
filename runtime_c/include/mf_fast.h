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
 * Requantization (mf_fast_requant). TFLite Micro computes
 *     RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(acc << left, m), right)
 * which, when |acc << (left + 1)| < 2^31 and right >= 1, equals exactly
 *     r = SMMULR(acc << (left + 1), m)          -- (2 x m + 2^31) >> 32, i.e. (x m + 2^30) >> 31
 *     out = (r + round + (r >> 31)) >> right    -- round = 2^(right-1) + out_zero_point << right
 * (ties away from zero; the zero point, a multiple of 2^right, passes the shift unchanged).
 * The lowering proves both conditions per channel from the weights and bias at compile time and
 * checks that r + round cannot overflow; an op where it cannot prove them keeps the reference
 * kernel. A fused residual ADD / SUB uses the same shortcut for its three rescalings when the
 * lowering has checked it against TFLite's arithmetic on every pair of int8 inputs
 * (mf_fast_addsub, the `addq` table); otherwise it runs mf_epilogue.h's reference steps.
 *
 * Access order: every kernel visits its units (output pixels, or rows for fully-connected) in
 * order, or last to first when `reverse` is 1 (the memory planner's backward runs); within a
 * unit it reads the inputs of a block of channels, then writes those channels, block after
 * block (descending when reversed). Residual operands are read, four at a time, before any of
 * those four outputs is stored. */
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

#if defined(__GNUC__) || defined(__clang__)
#define MF_INLINE static inline __attribute__((always_inline))
#else
#define MF_INLINE static inline
#endif

/* Per output channel: bias (input offset folded in), multiplier, shifts and rounding term. */
typedef struct {
    int32_t bias;
    int32_t mult;   /* Q31 multiplier */
    int32_t lshift; /* TFLite's left shift + 1 */
    int32_t rshift; /* TFLite's right shift, >= 1 */
    int32_t round;  /* 2^(rshift-1) + out_zero_point * 2^rshift */
} mf_fast_q;

/* The per-channel table as emitted (an int32 array, five words per channel). */
MF_INLINE const mf_fast_q *mf_fast_quant(const int32_t *words)
{
    return (const mf_fast_q *)(const void *)words;
}

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

MF_INLINE int32_t mf_smmulr(int32_t a, int32_t b)
{
    int32_t r;
    __asm__("smmulr %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
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

MF_INLINE int32_t mf_smmulr(int32_t a, int32_t b)
{
    return (int32_t)(((int64_t)a * (int64_t)b + 0x80000000LL) >> 32);
}

MF_INLINE int32_t mf_ssat8(int32_t x)
{
    return MF_CLAMP(x, -128, 127);
}
#endif

/* (x << lshift) * mult rounded, then divided by 2^rshift rounding ties away from zero, plus
 * whatever `round` adds beyond 2^(rshift-1) (see the top of this file). */
MF_INLINE int32_t mf_fast_scale(int32_t x, int32_t lshift, int32_t mult, int32_t round, int32_t rshift)
{
    const int32_t r = mf_smmulr((int32_t)((uint32_t)x << lshift), mult);
    return (r + round + (r >> 31)) >> rshift;
}

/* The requantized output before the activation clamp. */
MF_INLINE int32_t mf_fast_requant(int32_t acc, const mf_fast_q *q)
{
    return mf_fast_scale(acc, q->lshift, q->mult, q->round, q->rshift);
}

/* Clamp to [lo, hi] within int8: a saturation, then the activation's own bounds if narrower. */
MF_INLINE int32_t mf_fast_clamp(int32_t v, int32_t lo, int32_t hi)
{
    v = mf_ssat8(v);
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}

/* Epilogue kinds of the fast kernels beyond mf_epilogue.h's: a residual ADD / SUB / RSUB with the
 * shortcut rescaling (mf_fast_addsub). */
enum { MF_EP_ADDQ = 16, MF_EP_SUBQ, MF_EP_RSUBQ };

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

/* Requantize four accumulators of channels q[0..3], apply the epilogue (reading the four residual
 * elements first) and store the first `count` of them at out[0..]; `i` is out's element index. */
MF_INLINE void mf_fast_store4(int32_t a0, int32_t a1, int32_t a2, int32_t a3, const mf_fast_q *q,
                              int32_t lo, int32_t hi, const mf_epilogue_s8 *e,
                              const mf_fast_addsub *aq, int kind, const int8_t *res, int8_t *out,
                              int32_t i, int32_t count)
{
    int32_t v0 = mf_fast_clamp(mf_fast_requant(a0, q), lo, hi);
    int32_t v1 = mf_fast_clamp(mf_fast_requant(a1, q + 1), lo, hi);
    int32_t v2 = mf_fast_clamp(mf_fast_requant(a2, q + 2), lo, hi);
    int32_t v3 = mf_fast_clamp(mf_fast_requant(a3, q + 3), lo, hi);
    if (kind != MF_EP_NONE) {
        v0 = mf_fast_ep(e, aq, kind, v0, res, i);
        if (count > 1) {
            v1 = mf_fast_ep(e, aq, kind, v1, res, i + 1);
        }
        if (count > 2) {
            v2 = mf_fast_ep(e, aq, kind, v2, res, i + 2);
        }
        if (count > 3) {
            v3 = mf_fast_ep(e, aq, kind, v3, res, i + 3);
        }
    }
    out[0] = (int8_t)v0;
    if (count > 3) {
        out[1] = (int8_t)v1;
        out[2] = (int8_t)v2;
        out[3] = (int8_t)v3;
    } else {
        if (count > 1) {
            out[1] = (int8_t)v1;
        }
        if (count > 2) {
            out[2] = (int8_t)v2;
        }
    }
}

/* ---- the blocked dot product of convolution and fully-connected ---- */

/* acc[c] += x . w_c for four channels c over n8 chunks of 8 and n4 chunks of 4 int8 values;
 * the weights are interleaved per chunk ([4 channels][chunk]) and *wp advances past them. x is
 * read with word loads (a pair per 8 when `aligned`, i.e. x is 4-byte aligned). */
MF_INLINE void mf_dot4(const int8_t *x, const uint32_t **wp, int32_t n8, int32_t n4, int aligned,
                       int32_t *acc)
{
    const uint32_t *w = *wp;
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
#if MF_DSP && defined(__GNUC__)
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
#define MF_DOT8_EXT                 \
    "sxtb16 %[x1], %[x0], ror #8\n\t" \
    "sxtb16 %[x0], %[x0]\n\t"         \
    "sxtb16 %[x3], %[x2], ror #8\n\t" \
    "sxtb16 %[x2], %[x2]\n\t"         \
    MF_DOT8_CH(a0) MF_DOT8_CH(a1) MF_DOT8_CH(a2) MF_DOT8_CH(a3)
#define MF_DOT8_OPERANDS                                                                        \
    : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w] "+r"(w),     \
      [n] "+r"(n), [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3),              \
      [w0] "=&r"(w0), [w1] "=&r"(w1), [t] "=&r"(t)                                              \
    :                                                                                           \
    : "cc", "memory"
    if (n8 > 0) {
        /* 8 values of 4 channels (32 MACs) per turn: 5 loads, 20 SXTB16, 16 SMLAD. */
        uint32_t x0, x1, x2, x3, w0, w1, t;
        int32_t n = n8;
        if (aligned) {
            __asm__ volatile("1:\n\t"
                             "ldrd %[x0], %[x2], [%[x]], #8\n\t" MF_DOT8_EXT
                             "subs %[n], %[n], #1\n\t"
                             "bne 1b\n\t" MF_DOT8_OPERANDS);
        } else {
            __asm__ volatile("1:\n\t"
                             "ldr %[x2], [%[x], #4]\n\t"
                             "ldr %[x0], [%[x]], #8\n\t" MF_DOT8_EXT
                             "subs %[n], %[n], #1\n\t"
                             "bne 1b\n\t" MF_DOT8_OPERANDS);
        }
    }
#undef MF_DOT8_CH
#undef MF_DOT8_EXT
#undef MF_DOT8_OPERANDS
#else
    (void)aligned;
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
#endif
    for (; n4 > 0; n4--, x += 4, w += 4) {
        const uint32_t xa = mf_load32(x);
        const uint32_t x0 = mf_sxtb16(xa), x1 = mf_sxtb16_ror8(xa);
        a0 = mf_smlad(x1, mf_sxtb16_ror8(w[0]), mf_smlad(x0, mf_sxtb16(w[0]), a0));
        a1 = mf_smlad(x1, mf_sxtb16_ror8(w[1]), mf_smlad(x0, mf_sxtb16(w[1]), a1));
        a2 = mf_smlad(x1, mf_sxtb16_ror8(w[2]), mf_smlad(x0, mf_sxtb16(w[2]), a2));
        a3 = mf_smlad(x1, mf_sxtb16_ror8(w[3]), mf_smlad(x0, mf_sxtb16(w[3]), a3));
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
    *wp = w;
}

/* Initial accumulators of channels q[0..3]: their biases. */
MF_INLINE void mf_fast_bias4(const mf_fast_q *q, int32_t *acc)
{
    acc[0] = q[0].bias;
    acc[1] = q[1].bias;
    acc[2] = q[2].bias;
    acc[3] = q[3].bias;
}

/* ---- kernels ---- */

/* CONV_2D: per output pixel, four output channels at a time, each a dot product over the window
 * read straight from the input (window rows as runs, or tap by tap at the image border, taps
 * outside the image read from `zrow`); input channels not a multiple of 4 are gathered first
 * into a stack buffer of MF_GATHER_MAX bytes. */
#define MF_GATHER_MAX 256
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
    int32_t reverse;        /* 1: pixels last to first (a backward run of the memory plan) */
    const int32_t *weights; /* int8 words [out_c / 4][chunks][4 channels][chunk] */
    const int32_t *quant;   /* mf_fast_q [out_c rounded up to 4] */
    const int32_t *zrow;    /* in_c bytes of the input zero point, or NULL (no padding) */
    const int32_t *addq;    /* mf_fast_addsub of a fused residual ADD / SUB, or NULL */
} mf_conv2d_s8_gemm_params;

/* DEPTHWISE_CONV_2D (depth multiplier 1, channels a multiple of 4): per output pixel, four
 * channels at a time; a tap is one word of input and one of weights, 4 MACs (SMLABB / SMLATT). */
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
    int32_t reverse;        /* 1: pixels (and channel groups) last to first */
    const int32_t *weights; /* int8 words [out_c / 4][k_h * k_w][4 channels] */
    const int32_t *quant;   /* mf_fast_q [out_c] */
    const int32_t *addq;    /* mf_fast_addsub of a fused residual ADD / SUB, or NULL */
} mf_dwconv2d_s8_dsp_params;

/* FULLY_CONNECTED: per input row, four units at a time, each a dot product over the row. */
typedef struct {
    int32_t rows, depth, units;
    int32_t act_min, act_max;
    const int32_t *weights; /* int8 words [units / 4][chunks][4 units][chunk] */
    const int32_t *quant;   /* mf_fast_q [units rounded up to 4] */
    const int32_t *addq;    /* mf_fast_addsub of a fused residual ADD / SUB, or NULL */
} mf_fc_s8_dsp_params;

void mf_conv2d_s8_gemm(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int8_t *output);
void mf_dwconv2d_s8_dsp(const mf_dwconv2d_s8_dsp_params *p, const int8_t *input, int8_t *output);
void mf_fc_s8_dsp(const mf_fc_s8_dsp_params *p, const int8_t *input, int8_t *output);

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

/* The fused variants' definitions: `kernel` is the plain kernel's name, `ptype` its _ep_params
 * type, `body(k, e, aq, kind, input, res, output)` its loop. ADD / SUB / RSUB take the shortcut
 * rescaling when the lowering emitted its table (k.addq), the reference steps otherwise. */
#define MF_DEFINE_FAST_VARIANTS(kernel, ptype, body)                                                \
    void kernel##_lut(const ptype *p, const int8_t *input, int8_t *output)                          \
    {                                                                                               \
        const mf_epilogue_s8 e = p->ep;                                                             \
        body(&p->k, &e, NULL, MF_EP_LUT, input, NULL, output);                                      \
    }                                                                                               \
    void kernel##_add(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output)       \
    {                                                                                               \
        const mf_epilogue_s8 e = p->ep;                                                             \
        if (p->k.addq != NULL) {                                                                    \
            const mf_fast_addsub a = *(const mf_fast_addsub *)(const void *)p->k.addq;              \
            body(&p->k, &e, &a, MF_EP_ADDQ, input, res, output);                                    \
        } else {                                                                                    \
            body(&p->k, &e, NULL, MF_EP_ADD, input, res, output);                                   \
        }                                                                                           \
    }                                                                                               \
    void kernel##_sub(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output)       \
    {                                                                                               \
        const mf_epilogue_s8 e = p->ep;                                                             \
        if (p->k.addq != NULL) {                                                                    \
            const mf_fast_addsub a = *(const mf_fast_addsub *)(const void *)p->k.addq;              \
            body(&p->k, &e, &a, MF_EP_SUBQ, input, res, output);                                    \
        } else {                                                                                    \
            body(&p->k, &e, NULL, MF_EP_SUB, input, res, output);                                   \
        }                                                                                           \
    }                                                                                               \
    void kernel##_rsub(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output)      \
    {                                                                                               \
        const mf_epilogue_s8 e = p->ep;                                                             \
        if (p->k.addq != NULL) {                                                                    \
            const mf_fast_addsub a = *(const mf_fast_addsub *)(const void *)p->k.addq;              \
            body(&p->k, &e, &a, MF_EP_RSUBQ, input, res, output);                                   \
        } else {                                                                                    \
            body(&p->k, &e, NULL, MF_EP_RSUB, input, res, output);                                  \
        }                                                                                           \
    }                                                                                               \
    void kernel##_mul(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output)       \
    {                                                                                               \
        const mf_epilogue_s8 e = p->ep;                                                             \
        body(&p->k, &e, NULL, MF_EP_MUL, input, res, output);                                       \
    }

#endif /* MF_FAST_H */
