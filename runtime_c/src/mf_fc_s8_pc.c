/* FULLY_CONNECTED, int8, one multiplier per output unit (per-channel weights). */
#include "mf_fc.h"

void mf_fc_s8_pc(const mf_fc_s8_pc_params *p, const int8_t *input, int8_t *output)
{
    int32_t r, u, d;

    for (r = 0; r < p->rows; r++) {
        const int8_t *x = input + r * p->depth;
        for (u = 0; u < p->units; u++) {
            const int8_t *w = p->weights + u * p->depth;
            int32_t acc = p->bias[u];
            for (d = 0; d < p->depth; d++) {
                acc += w[d] * x[d];
            }
            acc = mf_requantize(acc, p->mult[u], p->shift[u]) + p->out_zero_point;
            output[r * p->units + u] = (int8_t)MF_CLAMP(acc, p->act_min, p->act_max);
        }
    }
}
