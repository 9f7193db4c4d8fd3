/* FULLY_CONNECTED, float32: same summation order as TFLite's reference.
 * The loop is in mf_fc_body.h (shared with the fused variants in mf_fc_f32_ep.c). */
#include "mf_fc_body.h"

void mf_fc_f32(const mf_fc_f32_params *p, const float *input, float *output)
{
    mf_fc_f32_body(p, NULL, MF_EP_NONE, input, NULL, output);
}
