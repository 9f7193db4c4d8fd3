/* CONV_2D / DEPTHWISE_CONV_2D float32 fused with a global AVERAGE_POOL_2D or MEAN (mf_gap.h). */
#include "mf_conv_part.h"
#include "mf_gap.h"

/* As mf_conv2d_s8_gap.c, summing floats in pixel raster order (the pool's and MEAN's order). */
MF_INLINE void mf_gap_f32_loop(int dw, const mf_conv_f32_any *k, mf_conv_f32_any *one,
                               const mf_epilogue_f32 *ep, const mf_gap_f32 *g, int kind,
                               const float *input, const float *res, float *output, float *sums)
{
    const mf_epilogue_f32 e = *ep;
    int32_t n, oy, ox, c;
    mf_conv_f32_part(dw, one, 1, 1);
    for (n = 0; n < k->conv.batches; n++) {
        float *out = output + n * k->conv.out_c;
        for (c = 0; c < k->conv.out_c; c++) {
            sums[c] = 0.0f;
        }
        for (oy = 0; oy < k->conv.out_h; oy++) {
            for (ox = 0; ox < k->conv.out_w; ox++) {
                const int32_t pixel = (n * k->conv.out_h + oy) * k->conv.out_w + ox;
                mf_conv_f32_run(dw, one, k->conv.pad_h - oy * k->conv.stride_h,
                                k->conv.pad_w - ox * k->conv.stride_w, &e, kind, input + n * mf_conv_f32_image(k),
                                res != NULL ? res + pixel * k->conv.out_c : NULL, out);
                for (c = 0; c < k->conv.out_c; c++) {
                    sums[c] += out[c];
                }
            }
        }
        for (c = 0; c < k->conv.out_c; c++) {
            const float v = sums[c] / (float)g->count;
            out[c] = MF_CLAMP(v, g->act_min, g->act_max);
        }
    }
}

MF_INLINE void mf_conv2d_f32_gap_body(const mf_conv2d_f32_gap_params *p, int kind, const float *input,
                                      const float *res, float *output, float *sums)
{
    mf_conv_f32_any one;
    one.conv = p->k;
    mf_gap_f32_loop(0, mf_conv_f32_view(&p->k), &one, &p->ep, &p->gap, kind, input, res, output, sums);
}

MF_INLINE void mf_dwconv2d_f32_gap_body(const mf_dwconv2d_f32_gap_params *p, int kind, const float *input,
                                        const float *res, float *output, float *sums)
{
    mf_conv_f32_any one;
    one.dw = p->k;
    mf_gap_f32_loop(1, mf_conv_f32_view(&p->k), &one, &p->ep, &p->gap, kind, input, res, output, sums);
}

void mf_conv2d_f32_gap(const mf_conv2d_f32_gap_params *p, const float *input, float *output, void *scratch)
{
    mf_conv2d_f32_gap_body(p, MF_EP_NONE, input, NULL, output, (float *)scratch);
}

void mf_conv2d_f32_gap_ep(const mf_conv2d_f32_gap_params *p, const float *input, float *output, void *scratch)
{
    mf_conv2d_f32_gap_body(p, MF_EP_F32, input, NULL, output, (float *)scratch);
}

void mf_conv2d_f32_gap_ep_res(const mf_conv2d_f32_gap_params *p, const float *input, const float *res, float *output,
                              void *scratch)
{
    mf_conv2d_f32_gap_body(p, MF_EP_F32, input, res, output, (float *)scratch);
}

void mf_dwconv2d_f32_gap(const mf_dwconv2d_f32_gap_params *p, const float *input, float *output, void *scratch)
{
    mf_dwconv2d_f32_gap_body(p, MF_EP_NONE, input, NULL, output, (float *)scratch);
}

void mf_dwconv2d_f32_gap_ep(const mf_dwconv2d_f32_gap_params *p, const float *input, float *output, void *scratch)
{
    mf_dwconv2d_f32_gap_body(p, MF_EP_F32, input, NULL, output, (float *)scratch);
}

void mf_dwconv2d_f32_gap_ep_res(const mf_dwconv2d_f32_gap_params *p, const float *input, const float *res, float *output,
                                void *scratch)
{
    mf_dwconv2d_f32_gap_body(p, MF_EP_F32, input, res, output, (float *)scratch);
}
