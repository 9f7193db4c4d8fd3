/* A global AVERAGE_POOL_2D int8 summed a band of rows at a time (mf_cascade.h). */
#include "mf_cascade.h"

void mf_rowsum_s8(const mf_rowsum_s8_params *p, const int8_t *input, int8_t *output, void *scratch)
{
    int32_t *sums = (int32_t *)scratch;
    int32_t i, c;
    if (p->start) {
        for (c = 0; c < p->channels; c++) {
            sums[c] = 0;
        }
    }
    for (i = 0; i < p->pixels; i++) {
        const int8_t *px = input + i * p->channels;
        for (c = 0; c < p->channels; c++) {
            sums[c] += px[c];
        }
    }
    if (!p->finish) {
        return;
    }
    for (c = 0; c < p->channels; c++) {
        const int32_t s = sums[c];
        /* Round half away from zero; C division truncates toward zero. */
        int32_t v = s > 0 ? (s + p->count / 2) / p->count : (s - p->count / 2) / p->count;
        output[c] = (int8_t)MF_CLAMP(v, p->act_min, p->act_max);
    }
}
