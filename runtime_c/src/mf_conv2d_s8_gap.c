/* CONV_2D / DEPTHWISE_CONV_2D int8 fused with a global AVERAGE_POOL_2D or MEAN (mf_gap.h). */
#include "mf_conv_body.h"
#include "mf_gap.h"

/* The pool's or MEAN's int8 result per channel from the sums of one image. */
MF_BODY void mf_gap_s8_finish(const mf_gap_s8 *g, const int32_t *sums, int8_t *out, int32_t channels)
{
    int32_t c;
    for (c = 0; c < channels; c++) {
        const int32_t s = sums[c];
        int32_t v;
        if (g->mean) {
            v = mf_requantize(s - g->in_zero_point * g->count, g->multiplier, g->shift) + g->out_zero_point;
            v = MF_CLAMP(v, -128, 127);
        } else {
            /* Round half away from zero; C division truncates toward zero. */
            v = s > 0 ? (s + g->count / 2) / g->count : (s - g->count / 2) / g->count;
            v = MF_CLAMP(v, g->act_min, g->act_max);
        }
        out[c] = (int8_t)v;
    }
}

/* One loop for both conv kinds: `body` is the unfused kernel's loop, run on one output pixel
 * (out_h = out_w = 1, the padding shifted to the pixel's window). */
#define MF_GAP_S8_LOOP(KTYPE, body)                                                              \
    const mf_epilogue_s8 e = p->ep;                                                              \
    KTYPE one = p->k;                                                                            \
    const int32_t channels = p->k.out_c;                                                         \
    const int32_t image = p->k.in_h * p->k.in_w * p->k.in_c;                                     \
    int32_t n, oy, ox, c;                                                                        \
    one.batches = 1;                                                                             \
    one.out_h = 1;                                                                               \
    one.out_w = 1;                                                                               \
    one.out_stride = 0; /* one dense pixel */                                                   \
    for (n = 0; n < p->k.batches; n++) {                                                         \
        int8_t *out = output + n * channels;                                                     \
        for (c = 0; c < channels; c++) {                                                         \
            sums[c] = 0;                                                                         \
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
        mf_gap_s8_finish(&p->gap, sums, out, channels);                                          \
    }

MF_BODY void mf_conv2d_s8_gap_body(const mf_conv2d_s8_gap_params *p, int kind, const int8_t *input,
                                   const int8_t *res, int8_t *output, int32_t *sums)
{
    MF_GAP_S8_LOOP(mf_conv2d_s8_params, mf_conv2d_s8_body)
}

MF_BODY void mf_dwconv2d_s8_gap_body(const mf_dwconv2d_s8_gap_params *p, int kind, const int8_t *input,
                                     const int8_t *res, int8_t *output, int32_t *sums)
{
    MF_GAP_S8_LOOP(mf_dwconv2d_s8_params, mf_dwconv2d_s8_body)
}

#define MF_GAP_S8_VARIANTS(name, ptype, body)                                                             \
    void name(const ptype *p, const int8_t *input, int8_t *output, void *scratch)                         \
    {                                                                                                     \
        body(p, MF_EP_NONE, input, NULL, output, (int32_t *)scratch);                                     \
    }                                                                                                     \
    void name##_lut(const ptype *p, const int8_t *input, int8_t *output, void *scratch)                   \
    {                                                                                                     \
        body(p, MF_EP_LUT, input, NULL, output, (int32_t *)scratch);                                      \
    }                                                                                                     \
    void name##_add(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output, void *scratch) \
    {                                                                                                     \
        body(p, MF_EP_ADD, input, res, output, (int32_t *)scratch);                                       \
    }                                                                                                     \
    void name##_sub(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output, void *scratch) \
    {                                                                                                     \
        body(p, MF_EP_SUB, input, res, output, (int32_t *)scratch);                                       \
    }                                                                                                     \
    void name##_rsub(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output, void *scratch) \
    {                                                                                                     \
        body(p, MF_EP_RSUB, input, res, output, (int32_t *)scratch);                                      \
    }                                                                                                     \
    void name##_mul(const ptype *p, const int8_t *input, const int8_t *res, int8_t *output, void *scratch) \
    {                                                                                                     \
        body(p, MF_EP_MUL, input, res, output, (int32_t *)scratch);                                       \
    }

MF_GAP_S8_VARIANTS(mf_conv2d_s8_gap, mf_conv2d_s8_gap_params, mf_conv2d_s8_gap_body)
MF_GAP_S8_VARIANTS(mf_dwconv2d_s8_gap, mf_dwconv2d_s8_gap_params, mf_dwconv2d_s8_gap_body)
