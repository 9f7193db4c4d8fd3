/* FULLY_CONNECTED int8, one multiplier: fused variants, one per int8 epilogue kind
 * (mf_fused.h). The epilogue is
 * copied to the stack once per call, so the loop never reloads it. */
#include "mf_fc_body.h"
#include "mf_fused.h"

void mf_fc_s8_lut(const mf_fc_s8_ep_params *p, const int8_t *input, int8_t *output)
{
    const mf_epilogue_s8 e = p->ep;
    mf_fc_s8_body(p->k.rows, p->k.depth, p->k.units, p->k.out_zero_point, p->k.act_min, p->k.act_max,
                  p->k.weights, p->k.bias, &p->k.mult, &p->k.shift, 0,
                  p->k.out_stride, &e, MF_EP_LUT, input, NULL, output);
}

void mf_fc_s8_add(const mf_fc_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output)
{
    const mf_epilogue_s8 e = p->ep;
    mf_fc_s8_body(p->k.rows, p->k.depth, p->k.units, p->k.out_zero_point, p->k.act_min, p->k.act_max,
                  p->k.weights, p->k.bias, &p->k.mult, &p->k.shift, 0,
                  p->k.out_stride, &e, MF_EP_ADD, input, res, output);
}

void mf_fc_s8_sub(const mf_fc_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output)
{
    const mf_epilogue_s8 e = p->ep;
    mf_fc_s8_body(p->k.rows, p->k.depth, p->k.units, p->k.out_zero_point, p->k.act_min, p->k.act_max,
                  p->k.weights, p->k.bias, &p->k.mult, &p->k.shift, 0,
                  p->k.out_stride, &e, MF_EP_SUB, input, res, output);
}

void mf_fc_s8_rsub(const mf_fc_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output)
{
    const mf_epilogue_s8 e = p->ep;
    mf_fc_s8_body(p->k.rows, p->k.depth, p->k.units, p->k.out_zero_point, p->k.act_min, p->k.act_max,
                  p->k.weights, p->k.bias, &p->k.mult, &p->k.shift, 0,
                  p->k.out_stride, &e, MF_EP_RSUB, input, res, output);
}

void mf_fc_s8_mul(const mf_fc_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output)
{
    const mf_epilogue_s8 e = p->ep;
    mf_fc_s8_body(p->k.rows, p->k.depth, p->k.units, p->k.out_zero_point, p->k.act_min, p->k.act_max,
                  p->k.weights, p->k.bias, &p->k.mult, &p->k.shift, 0,
                  p->k.out_stride, &e, MF_EP_MUL, input, res, output);
}
