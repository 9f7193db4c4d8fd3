/* microfuse runtime: float32 SOFTMAX over the last axis, as TFLite's reference kernel. */
#include <float.h>
#include <math.h>

#include "mf_softmax.h"

void mf_softmax_f32(const mf_softmax_f32_params *p, const float *in, float *out)
{
    int32_t row, c;
    for (row = 0; row < p->outer; ++row) {
        const float *x = in + row * p->depth;
        float *y = out + row * p->depth;
        float max = -FLT_MAX, sum = 0.0f;
        for (c = 0; c < p->depth; ++c) {
            max = MF_MAX(max, x[c]);
        }
        for (c = 0; c < p->depth; ++c) {
            y[c] = expf((x[c] - max) * p->beta);
            sum += y[c];
        }
        for (c = 0; c < p->depth; ++c) {
            y[c] = y[c] / sum;
        }
    }
}
