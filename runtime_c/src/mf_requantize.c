/* microfuse runtime: QUANTIZE between integer types (TFLM reference_ops::Requantize). */
#include "mf_int16.h"

/* One value: the subtraction wraps like TFLM's int32 arithmetic (an int32 input may be far
 * from its zero point) without signed-overflow UB; the result saturates to [lo, hi]. */
MF_INLINE int32_t mf_requantize_one(const mf_requantize_params *p, int32_t x, int32_t lo, int32_t hi)
{
    const int32_t centred = (int32_t)((uint32_t)x - (uint32_t)p->input_zero_point);
    const int32_t scaled = mf_requantize(centred, p->multiplier, p->shift);
    const int32_t y = (int32_t)((uint32_t)scaled + (uint32_t)p->output_zero_point);
    return MF_CLAMP(y, lo, hi);
}

void mf_requantize_s16_s8(const mf_requantize_params *p, const int16_t *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = (int8_t)mf_requantize_one(p, in[i], INT8_MIN, INT8_MAX);
    }
}

void mf_requantize_s16_s16(const mf_requantize_params *p, const int16_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = (int16_t)mf_requantize_one(p, in[i], INT16_MIN, INT16_MAX);
    }
}

void mf_requantize_s16_s32(const mf_requantize_params *p, const int16_t *in, int32_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = mf_requantize_one(p, in[i], INT32_MIN, INT32_MAX);
    }
}

void mf_requantize_s8_s16(const mf_requantize_params *p, const int8_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = (int16_t)mf_requantize_one(p, in[i], INT16_MIN, INT16_MAX);
    }
}

void mf_requantize_s8_s32(const mf_requantize_params *p, const int8_t *in, int32_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = mf_requantize_one(p, in[i], INT32_MIN, INT32_MAX);
    }
}

void mf_requantize_s32_s8(const mf_requantize_params *p, const int32_t *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = (int8_t)mf_requantize_one(p, in[i], INT8_MIN, INT8_MAX);
    }
}

void mf_requantize_s32_s16(const mf_requantize_params *p, const int32_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = (int16_t)mf_requantize_one(p, in[i], INT16_MIN, INT16_MAX);
    }
}
