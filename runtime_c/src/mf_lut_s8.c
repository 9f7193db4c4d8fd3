/* microfuse runtime: the one int8 unary kernel. RELU, RELU6, LEAKY_RELU, HARD_SWISH, LOGISTIC,
 * TANH, int8 requantization and any chain of them are a 256-byte table built at compile time
 * by emulating TFLite Micro's integer kernels on every input value. */
#include "mf_elementwise.h"

void mf_lut_s8(const mf_lut_params *p, const int8_t *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = p->lut[(uint8_t)in[i]];
    }
}

void mf_lut_u8_s8(const mf_lut_params *p, const uint8_t *in, int8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = p->lut[in[i]];
    }
}

void mf_lut_s8_u8(const mf_lut_params *p, const int8_t *in, uint8_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = (uint8_t)p->lut[(uint8_t)in[i]];
    }
}
