/* DEPTHWISE_CONV_2D float32: fused variants with a float epilogue (mf_fused.h). */
#include "mf_conv_body.h"
#include "mf_fused.h"

void mf_dwconv2d_f32_ep(const mf_dwconv2d_f32_ep_params *p, const float *input, float *output)
{
    const mf_epilogue_f32 e = p->ep;
    mf_dwconv2d_f32_body(&p->k, &e, MF_EP_F32, input, NULL, output);
}

void mf_dwconv2d_f32_ep_res(const mf_dwconv2d_f32_ep_params *p, const float *input, const float *res, float *output)
{
    const mf_epilogue_f32 e = p->ep;
    mf_dwconv2d_f32_body(&p->k, &e, MF_EP_F32, input, res, output);
}
