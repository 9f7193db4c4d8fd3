/* SVDF, int8 input and output, int16 or int8 state and time weights (see mf_svdf.h). One body,
 * always inlined with `wide` constant, so each entry point gets its own loads and stores. */
#include <string.h>

#include "mf_svdf.h"

MF_INLINE int32_t mf_svdf_get(const void *v, int32_t i, int wide)
{
    return wide ? (int32_t)((const int16_t *)v)[i] : (int32_t)((const int8_t *)v)[i];
}

MF_INLINE void mf_svdf_s8(const mf_svdf_s8_params *p, const int8_t *input, int8_t *output, void *state, int wide)
{
    const int32_t n = p->batches * p->n_filter * p->memory, units = p->n_filter / p->rank;
    const int32_t lo = wide ? -32768 : -128, hi = wide ? 32767 : 127, size = wide ? 2 : 1;
    int32_t b, f, k, u, r;
    /* every value one place left: each filter's oldest leaves, its newest slot is rewritten below */
    if (n > 1) {
        memmove(state, (char *)state + size, (size_t)(n - 1) * (size_t)size);
    }
    for (b = 0; b < p->batches; ++b) {
        const int8_t *x = input + b * p->n_input;
        const int32_t row0 = b * p->n_filter * p->memory;
        for (f = 0; f < p->n_filter; ++f) {
            const int8_t *w = p->w_feature + f * p->n_input;
            const int32_t at = row0 + f * p->memory + p->memory - 1;
            int32_t acc = p->feature_offset[f];
            for (k = 0; k < p->n_input; ++k) {
                acc += (int32_t)w[k] * (int32_t)x[k];
            }
            acc = p->state_zp + MF_CLAMP(mf_requantize(acc, p->mult1, p->shift1), lo, hi);
            if (wide) {
                ((int16_t *)state)[at] = (int16_t)acc;
            } else {
                ((int8_t *)state)[at] = (int8_t)acc; /* TFLM stores zp + value unclamped */
            }
        }
        for (u = 0; u < units; ++u) {
            int32_t acc = p->bias[u];
            for (r = 0; r < p->rank; ++r) {
                const int32_t filter = u * p->rank + r, s0 = row0 + filter * p->memory;
                int32_t dot = p->time_offset[filter];
                for (k = 0; k < p->memory; ++k) { /* int16 x int16 sums wrap as TFLM's int32 does */
                    dot = (int32_t)((uint32_t)dot + (uint32_t)(mf_svdf_get(p->w_time, filter * p->memory + k, wide) *
                                                               mf_svdf_get(state, s0 + k, wide)));
                }
                acc = (int32_t)((uint32_t)acc + (uint32_t)dot);
            }
            acc = mf_requantize(acc, p->mult2, p->shift2) + p->out_zp;
            output[b * units + u] = (int8_t)MF_CLAMP(acc, -128, 127);
        }
    }
}

void mf_svdf_s8_s16(const mf_svdf_s8_params *p, const int8_t *input, int8_t *output, int16_t *state)
{
    mf_svdf_s8(p, input, output, state, 1);
}

void mf_svdf_s8_s8(const mf_svdf_s8_params *p, const int8_t *input, int8_t *output, int8_t *state)
{
    mf_svdf_s8(p, input, output, state, 0);
}
