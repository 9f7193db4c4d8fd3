/* AVERAGE_POOL_2D, float32: sum in window order, then one division (as TFLite).
 * The loop is in mf_pool_body.h (shared with the fused variants in mf_pool_avg_f32_ep.c). */
#include "mf_pool_body.h"

void mf_pool_avg_f32(const mf_pool_f32_params *p, const float *input, float *output)
{
    mf_pool_f32_body(p, 1, NULL, MF_EP_NONE, input, NULL, output);
}
