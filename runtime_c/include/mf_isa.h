/* microfuse runtime: the instructions of the fast int8 kernels (mf_fast.h), as inline functions.
 *
 * On cores with the DSP extension (__ARM_FEATURE_DSP: Cortex-M4/M7/M33/M55) the MACs run on int16
 * pairs (SMLAD, SMLABB, SMLATT) extended on the fly from int8 words; elsewhere (host gcc,
 * Cortex-M0/M3) the same functions are plain C with the same results.
 *
 * int8 words. A 32-bit load of four int8 values b0 b1 b2 b3 (little-endian) is split by
 *   SXTB16(v) = (b0, b2)   and   SXTB16(v, ROR #8) = (b1, b3)     (int16 pairs, low half first).
 * Activations and weights are split the same way, so for four consecutive depth values
 *   SMLAD(SXTB16(x), SXTB16(w)) + SMLAD(SXTB16(x, ROR 8), SXTB16(w, ROR 8)) = sum x_i w_i,
 * and for one tap of four channels (depthwise: channels innermost)
 *   SMLABB / SMLATT of the even pairs give channels 0 and 2, of the odd pairs channels 1 and 3.
 * The compile-time weight layout (lower/fast.py) only blocks and interleaves the int8 weights
 * so that each loop reads them with post-incremented word loads. */
#ifndef MF_ISA_H
#define MF_ISA_H

#include <string.h>

#include "mf_common.h"

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

/* The hand-scheduled assembly loops (mf_fast_blocks, mf_dw_pixel, mf_fast_finish_addsub) keep 14
 * values in registers: every allocatable Thumb-2 core register, r7 included. gcc reserves r7 as
 * the frame pointer when not optimizing (-O0), so there, and in a build that defines
 * MF_NO_ASM_LOOPS (one compiled with -fno-omit-frame-pointer must), the kernels run the C loops
 * of the same functions instead: the same arithmetic, bit for bit. */
#if MF_DSP && defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(MF_NO_ASM_LOOPS)
#define MF_ASM_LOOPS 1
#else
#define MF_ASM_LOOPS 0
#endif

/* Helpers shared by the fast kernels' files: weak, so the linker keeps one copy of each. */
#if defined(__GNUC__) || defined(__clang__)
#define MF_HELPER __attribute__((weak, noinline))
#else
#define MF_HELPER static
#endif

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

/* acc's int16 lanes plus the sign-extended bytes 0 and 2 (1 and 3 with ror8) of x */
MF_INLINE uint32_t mf_sxtab16(uint32_t acc, uint32_t x)
{
    uint32_t r;
    __asm__("sxtab16 %0, %1, %2" : "=r"(r) : "r"(acc), "r"(x));
    return r;
}

MF_INLINE uint32_t mf_sxtab16_ror8(uint32_t acc, uint32_t x)
{
    uint32_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(acc), "r"(x));
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

MF_INLINE uint32_t mf_sxtab16(uint32_t acc, uint32_t x)
{
    const uint32_t e = mf_sxtb16(x);
    return mf_pack16(mf_lo16(acc) + mf_lo16(e), mf_hi16(acc) + mf_hi16(e)); /* lanes wrap as SXTAB16's */
}

MF_INLINE uint32_t mf_sxtab16_ror8(uint32_t acc, uint32_t x)
{
    return mf_sxtab16(acc, x >> 8);
}
#endif

#endif /* MF_ISA_H */
