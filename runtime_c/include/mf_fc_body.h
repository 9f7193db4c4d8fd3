/* microfuse runtime (private): the FULLY_CONNECTED loops as always-inline bodies, instantiated
 * by mf_fc_*.c once per epilogue kind (mf_epilogue.h); MF_EP_NONE is the reference kernel.
 * Rows are produced in order; residual element i is read right before output i is stored. */
#ifndef MF_FC_BODY_H
#define MF_FC_BODY_H

#include "mf_epilogue.h"
#include "mf_fc.h"

/* per_channel: mult/shift are arrays (mf_fc_s8_pc) rather than one value (mf_fc_s8). */
MF_INLINE void mf_fc_s8_body(int32_t rows, int32_t depth, int32_t units, int32_t out_zero_point,
                             int32_t act_min, int32_t act_max, const int8_t *weights, const int32_t *bias,
                             const int32_t *mult, const int32_t *shift, int per_channel,
                             int32_t out_stride, const mf_epilogue_s8 *e, int kind, const int8_t *input,
                             const int8_t *res, int8_t *output)
{
    int32_t r, u, d;

    /* out_stride: elements between output rows, 0 = units (dense); the residual stays dense */
    out_stride = out_stride ? out_stride : units;
    for (r = 0; r < rows; r++) {
        const int8_t *x = input + r * depth;
        for (u = 0; u < units; u++) {
            const int8_t *w = weights + u * depth;
            const int32_t i = r * units + u;
            int32_t acc = bias[u];
            for (d = 0; d < depth; d++) {
                acc += w[d] * x[d];
            }
            acc = mf_requantize(acc, per_channel ? mult[u] : mult[0], per_channel ? shift[u] : shift[0]);
            acc = MF_CLAMP(acc + out_zero_point, act_min, act_max);
            output[r * out_stride + u] = mf_ep_s8(e, kind, acc, res, i);
        }
    }
}

MF_INLINE void mf_fc_f32_body(const mf_fc_f32_params *p, const mf_epilogue_f32 *e, int kind,
                              const float *input, const float *res, float *output)
{
    const int32_t out_stride = p->out_stride ? p->out_stride : p->units;
    int32_t r, u, d;

    for (r = 0; r < p->rows; r++) {
        const float *x = input + r * p->depth;
        for (u = 0; u < p->units; u++) {
            const float *w = p->weights + u * p->depth;
            const int32_t i = r * p->units + u;
            float total = 0.0f;
            for (d = 0; d < p->depth; d++) {
                total += x[d] * w[d];
            }
            total += p->bias != NULL ? p->bias[u] : 0.0f;
            total = MF_CLAMP(total, p->act_min, p->act_max);
            output[r * out_stride + u] = mf_ep_f32(e, kind, total, res, i);
        }
    }
}

#endif /* MF_FC_BODY_H */
