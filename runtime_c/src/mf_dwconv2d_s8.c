/* DEPTHWISE_CONV_2D, int8 activations and weights, per-channel requantization.
 * The loop is in mf_conv_body.h (shared with the fused variants in mf_dwconv2d_s8_ep.c). */
#include "mf_conv_body.h"

void mf_dwconv2d_s8(const mf_dwconv2d_s8_params *p, const int8_t *input, int8_t *output)
{
    mf_dwconv2d_s8_body(p, NULL, MF_EP_NONE, input, NULL, output);
}
