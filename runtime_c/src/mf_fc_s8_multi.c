/* FULLY_CONNECTED int8, horizontally fused siblings (mf_multi.h): per input row, every
 * sibling's units, each range stored to its own output. */
#include "mf_multi.h"

static void mf_fc_s8_multi(const mf_fc_s8_multi_params *p, const int8_t *input, int8_t *const *outs)
{
    const mf_fc_s8_pc_params *k = &p->k;
    const mf_multi_outputs *o = &p->o;
    int32_t row, r, j, d;

    for (row = 0; row < k->rows; row++) {
        const int8_t *x = input + row * k->depth;
        int32_t u = 0;
        for (r = 0; r < o->n_outputs; r++) {
            int8_t *out = outs[r] + row * (o->out_stride[r] ? o->out_stride[r] : o->out_c[r]);
            for (j = 0; j < o->out_c[r]; j++, u++) {
                const int8_t *w = k->weights + u * k->depth;
                int32_t acc = k->bias[u];
                for (d = 0; d < k->depth; d++) {
                    acc += w[d] * x[d];
                }
                acc = mf_requantize(acc, k->mult[u], k->shift[u]);
                out[j] = (int8_t)MF_CLAMP(acc + o->out_zero_point[r], o->act_min[r], o->act_max[r]);
            }
        }
    }
}

void mf_fc_s8_x2(const mf_fc_s8_multi_params *p, const int8_t *input, int8_t *out0, int8_t *out1)
{
    int8_t *const outs[2] = {out0, out1};
    mf_fc_s8_multi(p, input, outs);
}

void mf_fc_s8_x3(const mf_fc_s8_multi_params *p, const int8_t *input, int8_t *out0, int8_t *out1, int8_t *out2)
{
    int8_t *const outs[3] = {out0, out1, out2};
    mf_fc_s8_multi(p, input, outs);
}

void mf_fc_s8_x4(const mf_fc_s8_multi_params *p, const int8_t *input, int8_t *out0, int8_t *out1, int8_t *out2,
                 int8_t *out3)
{
    int8_t *const outs[4] = {out0, out1, out2, out3};
    mf_fc_s8_multi(p, input, outs);
}
