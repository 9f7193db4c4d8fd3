/* CONV_2D / DEPTHWISE_CONV_2D float32 fused with a global AVERAGE_POOL_2D or MEAN (mf_gap.h). */
#include "mf_conv_body.h"
#include "mf_gap.h"

/* As mf_conv2d_s8_gap.c, summing floats in pixel raster order (the pool's and MEAN's order). */
#define MF_GAP_F32_LOOP(KTYPE, body)                                                             \
    const mf_epilogue_f32 e = p->ep;                                                             \
    KTYPE one = p->k;                                                                            \
    const int32_t channels = p->k.out_c;                                                         \
    const int32_t image = p->k.in_h * p->k.in_w * p->k.in_c;                                     \
    int32_t n, oy, ox, c;                                                                        \
    one.batches = 1;                                                                             \
    one.out_h = 1;                                                                               \
    one.out_w = 1;                                                                               \
    one.out_stride = 0; /* one dense pixel */                                                   \
    for (n = 0; n < p->k.batches; n++) {                                                         \
        float *out = output + n * channels;                                                      \
        for (c = 0; c < channels; c++) {                                                         \
            sums[c] = 0.0f;                                                                      \
        }                                                                                        \
        for (oy = 0; oy < p->k.out_h; oy++) {                                                    \
            one.pad_h = p->k.pad_h - oy * p->k.stride_h;                                         \
            for (ox = 0; ox < p->k.out_w; ox++) {                                                \
                const int32_t pixel = (n * p->k.out_h + oy) * p->k.out_w + ox;                   \
                one.pad_w = p->k.pad_w - ox * p->k.stride_w;                                     \
                body(&one, &e, kind, input + n * image, res != NULL ? res + pixel * channels : NULL, out); \
                for (c = 0; c < channels; c++) {                                                 \
                    sums[c] += out[c];                                                           \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
        for (c = 0; c < channels; c++) {                                                         \
            const float v = sums[c] / (float)p->gap.count;                                       \
            out[c] = MF_CLAMP(v, p->gap.act_min, p->gap.act_max);                                \
        }                                                                                        \
    }

MF_BODY void mf_conv2d_f32_gap_body(const mf_conv2d_f32_gap_params *p, int kind, const float *input,
                                    const float *res, float *output, float *sums)
{
    MF_GAP_F32_LOOP(mf_conv2d_f32_params, mf_conv2d_f32_body)
}

MF_BODY void mf_dwconv2d_f32_gap_body(const mf_dwconv2d_f32_gap_params *p, int kind, const float *input,
                                      const float *res, float *output, float *sums)
{
    MF_GAP_F32_LOOP(mf_dwconv2d_f32_params, mf_dwconv2d_f32_body)
}

#define MF_GAP_F32_VARIANTS(name, ptype, body)                                                           \
    void name(const ptype *p, const float *input, float *output, void *scratch)                          \
    {                                                                                                    \
        body(p, MF_EP_NONE, input, NULL, output, (float *)scratch);                                      \
    }                                                                                                    \
    void name##_ep(const ptype *p, const float *input, float *output, void *scratch)                     \
    {                                                                                                    \
        body(p, MF_EP_F32, input, NULL, output, (float *)scratch);                                       \
    }                                                                                                    \
    void name##_ep_res(const ptype *p, const float *input, const float *res, float *output, void *scratch) \
    {                                                                                                    \
        body(p, MF_EP_F32, input, res, output, (float *)scratch);                                        \
    }

MF_GAP_F32_VARIANTS(mf_conv2d_f32_gap, mf_conv2d_f32_gap_params, mf_conv2d_f32_gap_body)
MF_GAP_F32_VARIANTS(mf_dwconv2d_f32_gap, mf_dwconv2d_f32_gap_params, mf_dwconv2d_f32_gap_body)
