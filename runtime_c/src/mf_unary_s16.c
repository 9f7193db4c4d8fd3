/* microfuse runtime: int16 unary kernels, bit-exact with TFLite Micro's int16 paths. */
#include "mf_int16.h"

/* leaky_relu.cc -> reference_ops::QuantizeLeakyRelu<int16_t> */
void mf_leaky_relu_s16(const mf_leaky_relu_s16_params *p, const int16_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t v = (int32_t)in[i] - p->input_zero_point;
        const int32_t scaled = v >= 0 ? mf_requantize(v, p->identity_multiplier, p->identity_shift)
                                      : mf_requantize(v, p->alpha_multiplier, p->alpha_shift);
        const int32_t o = scaled + p->output_zero_point;
        out[i] = (int16_t)MF_CLAMP(o, INT16_MIN, INT16_MAX);
    }
}

/* activations.cc ReluQuantized<int16_t> (zero points 0, TFLM's Prepare checks) */
void mf_relu_s16(const mf_relu_s16_params *p, const int16_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int32_t o = mf_requantize(in[i], p->multiplier, p->shift);
        out[i] = (int16_t)MF_CLAMP(o, p->act_min, p->act_max);
    }
}

/* activations.cc Relu6Quantized<int16_t>: no requantization */
void mf_relu6_s16(const mf_relu_s16_params *p, const int16_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = (int16_t)MF_CLAMP(in[i], p->act_min, p->act_max);
    }
}
