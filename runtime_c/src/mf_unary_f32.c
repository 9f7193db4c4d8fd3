/* microfuse runtime: float32 activations, as TFLite Micro's float reference kernels. */
#include <math.h>

#include "mf_elementwise.h"

void mf_relu_f32(const mf_unary_f32_params *p, const float *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const float v = in[i];
        out[i] = v < 0.0f ? 0.0f : v;
    }
}

void mf_relu6_f32(const mf_unary_f32_params *p, const float *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const float v = in[i];
        out[i] = v > 6.0f ? 6.0f : v < 0.0f ? 0.0f : v;
    }
}

void mf_leaky_relu_f32(const mf_unary_f32_params *p, const float *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const float v = in[i];
        out[i] = v > 0.0f ? v : v * p->alpha; /* alpha may be > 1 or < 0: no max() */
    }
}

void mf_hard_swish_f32(const mf_unary_f32_params *p, const float *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const float v = in[i];
        const float r = MF_MIN(6.0f, MF_MAX(0.0f, v + 3.0f));
        out[i] = v * r / 6.0f;
    }
}

void mf_logistic_f32(const mf_unary_f32_params *p, const float *in, float *out)
{
    /* TFLite's cut-offs: beyond them the float result is exactly 1 or exp(x). */
    const float upper = 16.619047164916992188f;
    const float lower = -9.0f;
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const float v = in[i];
        out[i] = v > upper ? 1.0f : v < lower ? expf(v) : 1.0f / (1.0f + expf(-v));
    }
}

void mf_tanh_f32(const mf_unary_f32_params *p, const float *in, float *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = tanhf(in[i]);
    }
}
