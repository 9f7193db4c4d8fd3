/* microfuse runtime: ADD_N (mf_add_n.h). */
#include <stdarg.h>

#include "mf_add_n.h"

void mf_add_n_f32(const mf_add_n_params *p, ...)
{
    const float *ins[MF_ADD_N_MAX_INPUTS];
    float *out;
    int32_t i, k;
    va_list ap;
    va_start(ap, p);
    for (k = 0; k < p->n_inputs; ++k) {
        ins[k] = va_arg(ap, const float *);
    }
    out = va_arg(ap, float *);
    va_end(ap);
    for (i = 0; i < p->size; ++i) {
        float sum = 0.0f;
        for (k = 0; k < p->n_inputs; ++k) {
            sum += ins[k][i];
        }
        out[i] = sum;
    }
}

void mf_add_n_s8(const mf_add_n_params *p, ...)
{
    const int8_t *ins[MF_ADD_N_MAX_INPUTS];
    int8_t *out;
    int32_t i, k;
    va_list ap;
    va_start(ap, p);
    for (k = 0; k < p->n_inputs; ++k) {
        ins[k] = va_arg(ap, const int8_t *);
    }
    out = va_arg(ap, int8_t *);
    va_end(ap);
    for (i = 0; i < p->size; ++i) {
        int32_t sum = p->init, r;
        for (k = 0; k < p->n_inputs; ++k) {
            sum += mf_requantize((ins[k][i] + p->input_offset) * (1 << p->left_shift), p->input_multiplier,
                                 p->input_shift);
        }
        r = mf_requantize(sum, p->output_multiplier, p->output_shift) + p->output_offset;
        out[i] = (int8_t)MF_CLAMP(r, -128, 127);
    }
}
