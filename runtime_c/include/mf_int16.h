/* microfuse runtime: kernels of 16-bit activation ("16x8") models: requantization between
 * integer types (QUANTIZE), bit-exact with TFLite Micro's reference kernels. Every element i of
 * the output is written after element i of the input is read, in increasing i. */
#ifndef MF_INT16_H
#define MF_INT16_H

#include "mf_common.h"

/* TFLM's reference_ops::Requantize (QUANTIZE between integer types): out = clamp(
 * MultiplyByQuantizedMultiplier(in - input_zero_point, multiplier, shift) + output_zero_point). */
typedef struct {
    int32_t size;
    int32_t input_zero_point, output_zero_point;
    int32_t multiplier, shift;
} mf_requantize_params;

void mf_requantize_s16_s8(const mf_requantize_params *p, const int16_t *in, int8_t *out);
void mf_requantize_s16_s16(const mf_requantize_params *p, const int16_t *in, int16_t *out);
void mf_requantize_s16_s32(const mf_requantize_params *p, const int16_t *in, int32_t *out);
void mf_requantize_s8_s16(const mf_requantize_params *p, const int8_t *in, int16_t *out);
void mf_requantize_s8_s32(const mf_requantize_params *p, const int8_t *in, int32_t *out);
void mf_requantize_s32_s8(const mf_requantize_params *p, const int32_t *in, int8_t *out);
void mf_requantize_s32_s16(const mf_requantize_params *p, const int32_t *in, int16_t *out);

#endif /* MF_INT16_H */
