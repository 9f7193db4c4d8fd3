/* CONV_2D / DEPTHWISE_CONV_2D float32 fused with a global AVERAGE_POOL_2D or MEAN (mf_gap.h). */
#include "mf_conv_part.h"
#include "mf_gap.h"

/* As mf_conv2d_s8_gap.c, summing floats in pixel raster order (the pool's and MEAN's order). */
MF_INLINE void mf_gap_f32_loop(int dw, mf_conv_f32_any *one, const mf_epilogue_f32 *ep,
                               const mf_gap_f32 *g, int kind, const float *input, const float *res,
                               float *output, float *sums)
{
    const mf_epilogue_f32 e = *ep;
    const int32_t batches = one->conv.batches, out_h = one->conv.out_h, out_w = one->conv.out_w;
    const int32_t channels = one->conv.out_c;
    const int32_t image = one->conv.in_h * one->conv.in_w * one->conv.in_c;
    const int32_t pad_h = one->conv.pad_h, pad_w = one->conv.pad_w;
    const int32_t stride_h = one->conv.stride_h, stride_w = one->conv.stride_w;
    int32_t n, oy, ox, c;
    mf_conv_f32_part(dw, one, 1, 1);
    for (n = 0; n < batches; n++) {
        float *out = output + n * channels;
        for (c = 0; c < channels; c++) {
            sums[c] = 0.0f;
        }
        for (oy = 0; oy < out_h; oy++) {
            for (ox = 0; ox < out_w; ox++) {
                const int32_t pixel = (n * out_h + oy) * out_w + ox;
                mf_conv_f32_run(dw, one, pad_h - oy * stride_h, pad_w - ox * stride_w, &e, kind,
                                input + n * image, res != NULL ? res + pixel * channels : NULL, out);
                for (c = 0; c < channels; c++) {
                    sums[c] += out[c];
                }
            }
        }
        for (c = 0; c < channels; c++) {
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
    mf_gap_f32_loop(0, &one, &p->ep, &p->gap, kind, input, res, output, sums);
}

MF_INLINE void mf_dwconv2d_f32_gap_body(const mf_dwconv2d_f32_gap_params *p, int kind, const float *input,
                                        const float *res, float *output, float *sums)
{
    mf_conv_f32_any one;
    one.dw = p->k;
    mf_gap_f32_loop(1, &one, &p->ep, &p->gap, kind, input, res, output, sums);
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
