/* MAX_POOL_2D, float32.
 * The loop is in mf_pool_body.h (shared with the fused variants in mf_pool_max_f32_ep.c). */
#include "mf_pool_body.h"

void mf_pool_max_f32(const mf_pool_f32_params *p, const float *input, float *output)
{
    mf_pool_f32_body(p, 0, NULL, MF_EP_NONE, input, NULL, output);
}
