/* CONV_2D int8 two pixels at a time (mf_conv2d_s8_pair_body.h): fused variants, one per int8
 * epilogue kind, as mf_conv2d_s8_gemm_ep.c (ADD / SUB / RSUB with the shortcut rescaling when the
 * lowering emitted its table, k.addq). */
#include "mf_conv2d_s8_pair.h"
#include "mf_conv2d_s8_pair_body.h"

void mf_conv2d_s8_pair_lut(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, int8_t *output)
{
    mf_conv2d_s8_pair_body(&p->k, &p->ep, NULL, MF_EP_LUT, input, NULL, output);
}

void mf_conv2d_s8_pair_add(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output)
{
    const mf_fast_addsub *a = (const mf_fast_addsub *)(const void *)p->k.addq;
    mf_conv2d_s8_pair_body(&p->k, &p->ep, a, a != NULL ? MF_EP_ADDQ : MF_EP_ADD, input, res, output);
}

void mf_conv2d_s8_pair_sub(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output)
{
    const mf_fast_addsub *a = (const mf_fast_addsub *)(const void *)p->k.addq;
    mf_conv2d_s8_pair_body(&p->k, &p->ep, a, a != NULL ? MF_EP_SUBQ : MF_EP_SUB, input, res, output);
}

void mf_conv2d_s8_pair_rsub(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output)
{
    const mf_fast_addsub *a = (const mf_fast_addsub *)(const void *)p->k.addq;
    mf_conv2d_s8_pair_body(&p->k, &p->ep, a, a != NULL ? MF_EP_RSUBQ : MF_EP_RSUB, input, res, output);
}

void mf_conv2d_s8_pair_mul(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output)
{
    mf_conv2d_s8_pair_body(&p->k, &p->ep, NULL, MF_EP_MUL, input, res, output);
}
