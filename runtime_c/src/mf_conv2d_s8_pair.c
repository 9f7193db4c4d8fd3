/* The plain kernel; its loop and its description are in mf_conv2d_s8_pair_body.h. */
#include "mf_conv2d_s8_pair.h"
#include "mf_conv2d_s8_pair_body.h"

void mf_conv2d_s8_pair(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int8_t *output)
{
    mf_conv2d_s8_pair_body(p, NULL, NULL, MF_EP_NONE, input, NULL, output);
}
