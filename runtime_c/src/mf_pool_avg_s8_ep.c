/* AVERAGE_POOL_2D int8: fused variants, one per int8 epilogue kind
 * (mf_fused.h). The epilogue is
 * copied to the stack once per call, so the loop never reloads it. */
#include "mf_pool_body.h"
#include "mf_fused.h"

void mf_pool_avg_s8_lut(const mf_pool_s8_ep_params *p, const int8_t *input, int8_t *output)
{
    const mf_epilogue_s8 e = p->ep;
    mf_pool_s8_body(&p->k, 1, &e, MF_EP_LUT, input, NULL, output);
}
