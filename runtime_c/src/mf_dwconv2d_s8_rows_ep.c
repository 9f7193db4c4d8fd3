/* DEPTHWISE_CONV_2D int8 row-buffered: fused variants, one per int8 epilogue kind (mf_epilogue.h, mf_fast.h). The loop
 * is the plain kernel's (mf_dwconv2d_s8_rows_body.h, instantiated per kind); the epilogue is
 * copied to the stack once per call. */
#include "mf_dwconv2d_s8_rows_body.h"

void mf_dwconv2d_s8_rows_lut(const mf_dwconv2d_s8_rows_ep_params *p, const int8_t *input, int8_t *output, void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_dwconv2d_s8_rows_body(&p->k, &e, MF_EP_LUT, input, NULL, output, scratch, 0, 0, 0);
}

void mf_dwconv2d_s8_rows_add(const mf_dwconv2d_s8_rows_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                             void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_dwconv2d_s8_rows_body(&p->k, &e, MF_EP_ADD, input, res, output, scratch, 0, 0, 0);
}

void mf_dwconv2d_s8_rows_sub(const mf_dwconv2d_s8_rows_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                             void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_dwconv2d_s8_rows_body(&p->k, &e, MF_EP_SUB, input, res, output, scratch, 0, 0, 0);
}

void mf_dwconv2d_s8_rows_rsub(const mf_dwconv2d_s8_rows_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                              void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_dwconv2d_s8_rows_body(&p->k, &e, MF_EP_RSUB, input, res, output, scratch, 0, 0, 0);
}

void mf_dwconv2d_s8_rows_mul(const mf_dwconv2d_s8_rows_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                             void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_dwconv2d_s8_rows_body(&p->k, &e, MF_EP_MUL, input, res, output, scratch, 0, 0, 0);
}

void mf_dwconv2d_s8_rows3x3_lut(const mf_dwconv2d_s8_rows_ep_params *p, const int8_t *input, int8_t *output, void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_dwconv2d_s8_rows_body(&p->k, &e, MF_EP_LUT, input, NULL, output, scratch, 3, 3, 1);
}

void mf_dwconv2d_s8_rows3x3_add(const mf_dwconv2d_s8_rows_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                                void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_dwconv2d_s8_rows_body(&p->k, &e, MF_EP_ADD, input, res, output, scratch, 3, 3, 1);
}

void mf_dwconv2d_s8_rows3x3_sub(const mf_dwconv2d_s8_rows_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                                void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_dwconv2d_s8_rows_body(&p->k, &e, MF_EP_SUB, input, res, output, scratch, 3, 3, 1);
}

void mf_dwconv2d_s8_rows3x3_rsub(const mf_dwconv2d_s8_rows_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                                 void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_dwconv2d_s8_rows_body(&p->k, &e, MF_EP_RSUB, input, res, output, scratch, 3, 3, 1);
}

void mf_dwconv2d_s8_rows3x3_mul(const mf_dwconv2d_s8_rows_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                                void *scratch)
{
    const mf_epilogue_s8 e = p->ep;
    mf_dwconv2d_s8_rows_body(&p->k, &e, MF_EP_MUL, input, res, output, scratch, 3, 3, 1);
}
