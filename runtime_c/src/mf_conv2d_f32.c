/* CONV_2D, float32: same summation order as TFLite's reference (taps y, x, then channels).
 * The loop is in mf_conv_body.h (shared with the fused variants in mf_conv2d_f32_ep.c). */
#include "mf_conv_body.h"

void mf_conv2d_f32(const mf_conv2d_f32_params *p, const float *input, float *output)
{
    mf_conv2d_f32_body(p, NULL, MF_EP_NONE, input, NULL, output);
}
