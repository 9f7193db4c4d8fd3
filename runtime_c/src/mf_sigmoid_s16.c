/* microfuse runtime: int16 LOGISTIC and TANH, bit-exact with TFLite Micro (logistic.cc, tanh.cc:
 * reference_integer_ops::Logistic / Tanh on int16, a 256-entry table with linear interpolation). */
#include "mf_int16.h"

/* The input in the table's scale: 2^9 (LOGISTIC) or 2^8 (TANH) per table step. */
MF_INLINE int32_t mf_sigmoid_s16_scaled(const mf_sigmoid_s16_params *p, int16_t x)
{
    const int32_t round = p->shift > 0 ? (int32_t)1 << (p->shift - 1) : 0;
    return ((int32_t)x * p->multiplier + round) >> p->shift; /* |x * multiplier| < 2^30 */
}

/* Table step `bits` wide: ua * 2^bits + fraction * (ub - ua), saturated past the last step. */
MF_INLINE uint32_t mf_sigmoid_s16_lookup(const uint16_t *table, uint32_t a, int bits, uint32_t top)
{
    const uint32_t uh = a >> bits;
    if (uh >= 255) {
        return top;
    }
    return ((uint32_t)table[uh] << bits) + (a & ((1u << bits) - 1)) * ((uint32_t)table[uh + 1] - table[uh]);
}

void mf_logistic_s16(const mf_sigmoid_s16_params *p, const int16_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t x = mf_sigmoid_s16_scaled(p, in[i]);
        const uint32_t a = (uint32_t)(x < 0 ? -x : x);
        uint32_t r = mf_sigmoid_s16_lookup(p->table, a, 9, 0x7FFFu << 10);
        /* sigmoid(-x) = 1 - sigmoid(x), rounded back to Q0.15 */
        r = x >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1;
        out[i] = (int16_t)(r >> 10);
    }
}

void mf_tanh_s16(const mf_sigmoid_s16_params *p, const int16_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t x = mf_sigmoid_s16_scaled(p, in[i]);
        const uint32_t a = (uint32_t)(x < 0 ? -x : x);
        const int32_t s = (int32_t)mf_sigmoid_s16_lookup(p->table, a, 8, 0xFFFFu << 8);
        /* 2 sigmoid - 1 in Q0.15, odd around 0 */
        const int32_t r = x >= 0 ? s - (1 << 23) + (1 << 7) : -s + (1 << 23) + (1 << 7) - 1;
        out[i] = (int16_t)(r >> 8);
    }
}
