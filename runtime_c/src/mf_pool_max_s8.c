/* MAX_POOL_2D, int8.
 * The loop is in mf_pool_body.h (shared with the fused variants in mf_pool_max_s8_ep.c). */
#include "mf_pool_body.h"

void mf_pool_max_s8(const mf_pool_s8_params *p, const int8_t *input, int8_t *output)
{
    mf_pool_s8_body(p, 0, NULL, MF_EP_NONE, input, NULL, output);
}
