/* microfuse runtime: fast int8 kernels (GEMM convolution, row-buffered depthwise, dual-MAC
 * fully-connected) and the arithmetic they share.
 *
 * Selected at compile time by microfuse/lower/fast.py when an op fits; the reference kernels
 * (mf_conv2d_s8.c, ...) stay the fallback. On cores with the DSP extension (__ARM_FEATURE_DSP:
 * Cortex-M4/M7/M33/M55) the MACs run two at a time with SMLAD / SMLABB / SMLATT on int16 pairs;
 * elsewhere (host gcc, Cortex-M0/M3) the same functions are plain C with the same results.
 *
 * int16 pair layout. Four int8 values b0 b1 b2 b3 (one little-endian word) become two words
 *   even = (b0, b2), odd = (b1, b3)            (low half first: SXTB16 and SXTB16 ROR #8)
 * Activations are extended at run time into scratch in this order; weights are stored
 * pre-extended in the same order at compile time, so SMLAD(even_x, even_w) + SMLAD(odd_x, odd_w)
 * is the dot product of the four.
 *
 * Requantization (mf_fast_requant). TFLite Micro computes
 *     RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(acc << left, m), right)
 * which, when |acc << (left + 1)| < 2^31 and right >= 1, equals exactly
 *     r = SMMULR(acc << (left + 1), m)          -- (2 x m + 2^31) >> 32, i.e. (x m + 2^30) >> 31
 *     out = (r + round + (r >> 31)) >> right    -- round = 2^(right-1) + out_zero_point << right
 * (ties away from zero; the zero point, a multiple of 2^right, passes the shift unchanged).
 * The lowering proves both conditions per channel from the weights and bias at compile time and
 * checks that r + round cannot overflow; an op where it cannot prove them keeps the reference
 * kernel. */
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

/* ---- int16 pair arithmetic ---- */

MF_INLINE uint32_t mf_load32(const void *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

MF_INLINE void mf_store32(void *p, uint32_t v)
{
    memcpy(p, &v, 4);
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
#endif

/* Four int8 values at src -> two int16-pair words at dst (even, odd). */
MF_INLINE void mf_extend4(const int8_t *src, uint32_t *dst)
{
    const uint32_t v = mf_load32(src);
    dst[0] = mf_sxtb16(v);
    dst[1] = mf_sxtb16_ror8(v);
}

/* n int8 values (n a multiple of 4) -> n/2 words of int16 pairs. */
MF_INLINE void mf_extend(const int8_t *src, uint32_t *dst, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; i += 4) {
        mf_extend4(src + i, dst + i / 2);
    }
}

/* The requantized output before the activation clamp (see the top of this file). */
MF_INLINE int32_t mf_fast_requant(int32_t acc, const mf_fast_q *q)
{
    const int32_t r = mf_smmulr((int32_t)((uint32_t)acc << q->lshift), q->mult);
    return (r + q->round + (r >> 31)) >> q->rshift;
}

/* ---- kernels ---- */

/* CONV_2D as a GEMM: output pixels two at a time; each pair's windows are gathered and
 * extended into scratch, then every output channel pair is a dot product of length depth. */
typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_h, pad_w;
    int32_t depth;          /* k_h * k_w * in_c rounded up to a multiple of 4 */
    int32_t pointwise;      /* 1: 1x1, stride 1, no padding, in_c % 4 == 0: no gather needed */
    int32_t in_zero_point;  /* value of taps outside the image */
    int32_t act_min, act_max;
    const int32_t *weights; /* [out_c / 2][depth / 4][2 channels][2 words of int16 pairs] */
    const int32_t *quant;   /* mf_fast_q [out_c rounded up to even] */
} mf_conv2d_s8_gemm_params;

/* DEPTHWISE_CONV_2D (depth multiplier 1, channels a multiple of 4): per output row the k_h
 * input rows it reads are extended to int16 pairs (zero point in the padding) in scratch;
 * then every tap of four channels is one 64-bit load of inputs and of weights and four MACs. */
typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_h, pad_w;
    int32_t span;           /* columns of one buffered row: (out_w-1)*stride_w + (k_w-1)*dilation_w + 1 */
    int32_t in_zero_point;
    int32_t act_min, act_max;
    const int32_t *weights; /* [out_c / 4][k_h * k_w][2 words of int16 pairs] */
    const int32_t *quant;   /* mf_fast_q [out_c] */
} mf_dwconv2d_s8_rows_params;

/* FULLY_CONNECTED: the input row is extended once into scratch, then two units at a time. */
typedef struct {
    int32_t rows, depth, units;
    int32_t depth4;         /* depth rounded up to a multiple of 4 */
    int32_t act_min, act_max;
    const int32_t *weights; /* [units / 2][depth4 / 4][2 units][2 words of int16 pairs] */
    const int32_t *quant;   /* mf_fast_q [units rounded up to even] */
} mf_fc_s8_dsp_params;

void mf_conv2d_s8_gemm(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int8_t *output,
                       void *scratch);
void mf_dwconv2d_s8_rows(const mf_dwconv2d_s8_rows_params *p, const int8_t *input, int8_t *output,
                         void *scratch);
void mf_dwconv2d_s8_rows3x3(const mf_dwconv2d_s8_rows_params *p, const int8_t *input,
                            int8_t *output, void *scratch);
void mf_fc_s8_dsp(const mf_fc_s8_dsp_params *p, const int8_t *input, int8_t *output, void *scratch);

/* Fused variants (mf_epilogue.h): the plain kernel's params `k` and the epilogue's `ep`; the
 * residual variants read it at the output's index. Chosen by lower/conv.py's pick() like the
 * reference kernels' fused variants (lower/epilogue.py fused_kernels). */
typedef struct { mf_conv2d_s8_gemm_params k; mf_epilogue_s8 ep; } mf_conv2d_s8_gemm_ep_params;
typedef struct { mf_dwconv2d_s8_rows_params k; mf_epilogue_s8 ep; } mf_dwconv2d_s8_rows_ep_params;
typedef struct { mf_fc_s8_dsp_params k; mf_epilogue_s8 ep; } mf_fc_s8_dsp_ep_params;

#define MF_DECLARE_FAST_VARIANTS(name, ptype)                                                       \
    void name##_lut(const ptype *p, const int8_t *input, int8_t *output, void *scratch);            \
    void name##_add(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output,         \
                    void *scratch);                                                                 \
    void name##_sub(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output,         \
                    void *scratch);                                                                 \
    void name##_rsub(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output,        \
                     void *scratch);                                                                \
    void name##_mul(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output,         \
                    void *scratch);

MF_DECLARE_FAST_VARIANTS(mf_conv2d_s8_gemm, mf_conv2d_s8_gemm_ep_params)
MF_DECLARE_FAST_VARIANTS(mf_dwconv2d_s8_rows, mf_dwconv2d_s8_rows_ep_params)
MF_DECLARE_FAST_VARIANTS(mf_dwconv2d_s8_rows3x3, mf_dwconv2d_s8_rows_ep_params)
MF_DECLARE_FAST_VARIANTS(mf_fc_s8_dsp, mf_fc_s8_dsp_ep_params)

#endif /* MF_FAST_H */
