/* SVDF, float32 (see mf_svdf.h): TFLM's summation order (feature dot, time dot per filter, then
 * the bias plus each filter of a unit in turn), then the activation's clamp. */
#include <string.h>

#include "mf_svdf.h"

void mf_svdf_f32(const mf_svdf_f32_params *p, const float *input, float *output, float *state)
{
    const int32_t n = p->batches * p->n_filter * p->memory, units = p->n_filter / p->rank;
    int32_t b, f, k, u, r;
    if (n > 1) {
        memmove(state, state + 1, (size_t)(n - 1) * sizeof(float));
    }
    for (b = 0; b < p->batches; ++b) {
        const float *x = input + b * p->n_input;
        float *rows = state + b * p->n_filter * p->memory;
        for (f = 0; f < p->n_filter; ++f) {
            const float *w = p->w_feature + f * p->n_input;
            float dot = 0.0f;
            for (k = 0; k < p->n_input; ++k) {
                dot += w[k] * x[k];
            }
            rows[f * p->memory + p->memory - 1] = dot;
        }
        for (u = 0; u < units; ++u) {
            float acc = p->bias[u];
            for (r = 0; r < p->rank; ++r) {
                const float *s = rows + (u * p->rank + r) * p->memory;
                const float *w = p->w_time + (u * p->rank + r) * p->memory;
                float dot = 0.0f;
                for (k = 0; k < p->memory; ++k) {
                    dot += w[k] * s[k];
                }
                acc += dot;
            }
            output[b * units + u] = acc < p->act_min ? p->act_min : acc > p->act_max ? p->act_max : acc;
        }
    }
}
