/* microfuse runtime: DEQUANTIZE int8/uint8/int16 -> float32. */
#include "mf_elementwise.h"

/* The float product is exactly TFLite's double product rounded to float: both operands are
 * floats and |q - zp| < 2^17 (int16), so the double product is exact. */
void mf_dequantize_s8_f32(const mf_affine_params *p, const int8_t *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = p->scale * (float)((int32_t)in[i] - p->zero_point);
    }
}

void mf_dequantize_u8_f32(const mf_affine_params *p, const uint8_t *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = p->scale * (float)((int32_t)in[i] - p->zero_point);
    }
}

void mf_dequantize_s16_f32(const mf_affine_params *p, const int16_t *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = p->scale * (float)((int32_t)in[i] - p->zero_point);
    }
}
