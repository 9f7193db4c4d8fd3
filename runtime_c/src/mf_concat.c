/* microfuse runtime: CONCATENATION as interleaved row copies (any axis, any rank). */
#include <stdarg.h>
#include <string.h>

#include "mf_data.h"

void mf_concat_s8(const mf_concat_params *p, ...)
{
    const int8_t *ins[MF_CONCAT_MAX_INPUTS];
    int8_t *out;
    int32_t k, row;
    va_list ap;
    va_start(ap, p);
    for (k = 0; k < p->n_inputs; ++k) {
        ins[k] = va_arg(ap, const int8_t *);
    }
    out = va_arg(ap, int8_t *);
    va_end(ap);
    for (row = 0; row < p->outer; ++row) {
        for (k = 0; k < p->n_inputs; ++k) {
            memcpy(out, ins[k] + (size_t)row * p->chunk[k], (size_t)p->chunk[k]);
            out += p->chunk[k];
        }
    }
}

void mf_concat_f32(const mf_concat_params *p, ...)
{
    const float *ins[MF_CONCAT_MAX_INPUTS];
    float *out;
    int32_t k, row;
    va_list ap;
    va_start(ap, p);
    for (k = 0; k < p->n_inputs; ++k) {
        ins[k] = va_arg(ap, const float *);
    }
    out = va_arg(ap, float *);
    va_end(ap);
    for (row = 0; row < p->outer; ++row) {
        for (k = 0; k < p->n_inputs; ++k) {
            memcpy(out, ins[k] + (size_t)row * p->chunk[k], (size_t)p->chunk[k] * sizeof(float));
            out += p->chunk[k];
        }
    }
}
