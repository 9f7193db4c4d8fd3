/* microfuse runtime: fixed-point arithmetic shared by every int8 kernel.
 * Bit-exact with TFLite Micro's reference kernels, which requantize with
 * gemmlowp's "double rounding" (SaturatingRoundingDoublingHighMul followed
 * by RoundingDivideByPOT). */
#ifndef MF_COMMON_H
#define MF_COMMON_H

/* A build's names for the runtime's functions (mf_config.h, written by `microfuse build` beside this
 * file): NAME_mf_*, so several models link into one program. Quotes: the copy in this folder wins. */
#if defined(__has_include)
#if __has_include("mf_config.h")
#include "mf_config.h"
#endif
#endif

#include <stddef.h>
#include <float.h>
#include <stdint.h>

/* Alignment of the arena and of constant data (no-op for compilers we don't know). */
#if defined(__GNUC__) || defined(__clang__)
#define MF_ALIGNED(n) __attribute__((aligned(n)))
#else
#define MF_ALIGNED(n)
#endif

/* The kernels' bodies and helpers: inlined into every caller, so that a compile-time constant
 * argument (an epilogue `kind`, `strided`, a conv-or-depthwise flag) folds each variant into its
 * own straight-line loop. */
#if defined(__GNUC__) || defined(__clang__)
#define MF_INLINE static inline __attribute__((always_inline))
#else
#define MF_INLINE static inline
#endif

#define MF_MIN(a, b) ((a) < (b) ? (a) : (b))
#define MF_MAX(a, b) ((a) > (b) ? (a) : (b))
#define MF_CLAMP(x, lo, hi) MF_MIN(MF_MAX((x), (lo)), (hi))

/* (a * b * 2) >> 32, rounded to nearest, saturating the one overflow case. */
static inline int32_t mf_sat_round_doubling_high_mul(int32_t a, int32_t b)
{
    if (a == INT32_MIN && b == INT32_MIN) {
        return INT32_MAX;
    }
    int64_t ab = (int64_t)a * (int64_t)b;
    int64_t nudge = ab >= 0 ? (1LL << 30) : (1 - (1LL << 30));
    /* C division truncates toward zero, as gemmlowp relies on. */
    return (int32_t)((ab + nudge) / (1LL << 31));
}

/* x / 2^exponent rounded to nearest, ties away from zero (0 <= exponent <= 31). */
static inline int32_t mf_rounding_divide_by_pot(int32_t x, int exponent)
{
    int32_t mask = (int32_t)((1LL << exponent) - 1);
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* x * multiplier * 2^shift with multiplier a Q31 value in [0.5, 1). */
static inline int32_t mf_requantize(int32_t x, int32_t multiplier, int32_t shift)
{
    int left = shift > 0 ? shift : 0;
    int right = shift > 0 ? 0 : -shift;
    /* Wrap like TFLM's int32 multiply does, without signed-overflow UB. */
    int32_t shifted = (int32_t)((uint32_t)x << left);
    return mf_rounding_divide_by_pot(mf_sat_round_doubling_high_mul(shifted, multiplier), right);
}

#endif /* MF_COMMON_H */
