/* microfuse runtime: QUANTIZE float32 -> int8 / int16 (TFLM reference_ops::AffineQuantize). */
#include <math.h>

#include "mf_elementwise.h"

void mf_quantize_f32_s8(const mf_affine_params *p, const float *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        /* round half away from zero, as TfLiteRound; clamp in float first (no UB on cast) */
        float r = roundf(in[i] / p->scale);
        int32_t q;
        r = MF_CLAMP(r, -1e6f, 1e6f);
        q = (int32_t)r + p->zero_point;
        out[i] = (int8_t)MF_CLAMP(q, -128, 127);
    }
}

void mf_quantize_f32_s16(const mf_affine_params *p, const float *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        float r = roundf(in[i] / p->scale); /* as the int8 kernel, saturated to int16 */
        int32_t q;
        r = MF_CLAMP(r, -1e6f, 1e6f);
        q = (int32_t)r + p->zero_point;
        out[i] = (int16_t)MF_CLAMP(q, INT16_MIN, INT16_MAX);
    }
}
