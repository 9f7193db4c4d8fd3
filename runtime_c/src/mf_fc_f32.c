/* FULLY_CONNECTED, float32: same summation order as TFLite's reference. */
#include "mf_fc.h"

void mf_fc_f32(const mf_fc_f32_params *p, const float *input, float *output)
{
    int32_t r, u, d;

    for (r = 0; r < p->rows; r++) {
        const float *x = input + r * p->depth;
        for (u = 0; u < p->units; u++) {
            const float *w = p->weights + u * p->depth;
            float total = 0.0f;
            for (d = 0; d < p->depth; d++) {
                total += x[d] * w[d];
            }
            total += p->bias != NULL ? p->bias[u] : 0.0f;
            output[r * p->units + u] = MF_CLAMP(total, p->act_min, p->act_max);
        }
    }
}
