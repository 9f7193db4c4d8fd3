/* DEPTHWISE_CONV_2D int8 (mf_dwconv2d_s8_dsp_body.h): fused variants, one per int8 epilogue kind.
 * ADD / SUB / RSUB take the shortcut rescaling when the lowering emitted its table (k.addq), the
 * reference steps otherwise; the epilogue is read in place (the finishing pass loads its
 * constants once per stage). */
#include "mf_dwconv2d_s8_dsp_body.h"

void mf_dwconv2d_s8_dsp_lut(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, int8_t *output)
{
    mf_dwconv2d_s8_dsp_body(&p->k, &p->ep, NULL, MF_EP_LUT, input, NULL, output);
}

void mf_dwconv2d_s8_dsp_add(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output)
{
    const mf_fast_addsub *a = (const mf_fast_addsub *)(const void *)p->k.addq;
    mf_dwconv2d_s8_dsp_body(&p->k, &p->ep, a, a != NULL ? MF_EP_ADDQ : MF_EP_ADD, input, res, output);
}

void mf_dwconv2d_s8_dsp_sub(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output)
{
    const mf_fast_addsub *a = (const mf_fast_addsub *)(const void *)p->k.addq;
    mf_dwconv2d_s8_dsp_body(&p->k, &p->ep, a, a != NULL ? MF_EP_SUBQ : MF_EP_SUB, input, res, output);
}

void mf_dwconv2d_s8_dsp_rsub(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output)
{
    const mf_fast_addsub *a = (const mf_fast_addsub *)(const void *)p->k.addq;
    mf_dwconv2d_s8_dsp_body(&p->k, &p->ep, a, a != NULL ? MF_EP_RSUBQ : MF_EP_RSUB, input, res, output);
}

void mf_dwconv2d_s8_dsp_mul(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output)
{
    mf_dwconv2d_s8_dsp_body(&p->k, &p->ep, NULL, MF_EP_MUL, input, res, output);
}
