/* CONV_2D int8 GEMM: fused variants, one per int8 epilogue kind (mf_epilogue.h, mf_fast.h). The loop
 * is the plain kernel's (mf_conv2d_s8_gemm_body.h, instantiated per kind); the epilogue is
 * copied to the stack once per call. */
#include "mf_conv2d_s8_gemm_body.h"

void mf_conv2d_s8_gemm_lut(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, int8_t *output, void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_conv2d_s8_gemm_body(&p->k, &e, MF_EP_LUT, input, NULL, output, scratch);
}

void mf_conv2d_s8_gemm_add(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                           void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_conv2d_s8_gemm_body(&p->k, &e, MF_EP_ADD, input, res, output, scratch);
}

void mf_conv2d_s8_gemm_sub(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                           void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_conv2d_s8_gemm_body(&p->k, &e, MF_EP_SUB, input, res, output, scratch);
}

void mf_conv2d_s8_gemm_rsub(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                            void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_conv2d_s8_gemm_body(&p->k, &e, MF_EP_RSUB, input, res, output, scratch);
}

void mf_conv2d_s8_gemm_mul(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                           void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_conv2d_s8_gemm_body(&p->k, &e, MF_EP_MUL, input, res, output, scratch);
}
