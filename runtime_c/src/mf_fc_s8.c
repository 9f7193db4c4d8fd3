/* FULLY_CONNECTED, int8, one multiplier for the whole layer.
 * The loop is in mf_fc_body.h (shared with the fused variants in mf_fc_s8_ep.c). */
#include "mf_fc_body.h"

void mf_fc_s8(const mf_fc_s8_params *p, const int8_t *input, int8_t *output)
{
    mf_fc_s8_body(p->rows, p->depth, p->units, p->out_zero_point, p->act_min, p->act_max, p->weights,
                  p->bias, &p->mult, &p->shift, 0, p->out_stride, NULL, MF_EP_NONE, input, NULL, output);
}
