/* CONV_2D / DEPTHWISE_CONV_2D int8 fused with a global AVERAGE_POOL_2D or MEAN (mf_gap.h). */
#include "mf_conv_part.h"
#include "mf_gap.h"

/* The pool's or MEAN's int8 result per channel from the sums of one image. */
MF_INLINE void mf_gap_s8_finish(const mf_gap_s8 *g, const int32_t *sums, int8_t *out, int32_t channels)
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

/* One loop for both conv kinds (dw, mf_conv_part.h): the unfused kernel's loop run on one output
 * pixel at a time, its channels stored in the output (one pixel per image) and summed. */
MF_INLINE void mf_gap_s8_loop(int dw, mf_conv_s8_any *one, const mf_epilogue_s8 *ep, const mf_gap_s8 *g,
                              int kind, const int8_t *input, const int8_t *res, int8_t *output,
                              int32_t *sums)
{
    const mf_epilogue_s8 e = *ep;
    const int32_t batches = one->conv.batches, out_h = one->conv.out_h, out_w = one->conv.out_w;
    const int32_t channels = one->conv.out_c;
    const int32_t image = one->conv.in_h * one->conv.in_w * one->conv.in_c;
    const int32_t pad_h = one->conv.pad_h, pad_w = one->conv.pad_w;
    const int32_t stride_h = one->conv.stride_h, stride_w = one->conv.stride_w;
    int32_t n, oy, ox, c;
    mf_conv_s8_part(dw, one, 1, 1);
    for (n = 0; n < batches; n++) {
        int8_t *out = output + n * channels;
        for (c = 0; c < channels; c++) {
            sums[c] = 0;
        }
        for (oy = 0; oy < out_h; oy++) {
            for (ox = 0; ox < out_w; ox++) {
                const int32_t pixel = (n * out_h + oy) * out_w + ox;
                mf_conv_s8_run(dw, one, pad_h - oy * stride_h, pad_w - ox * stride_w, &e, kind,
                               input + n * image, res != NULL ? res + pixel * channels : NULL, out);
                for (c = 0; c < channels; c++) {
                    sums[c] += out[c];
                }
            }
        }
        mf_gap_s8_finish(g, sums, out, channels);
    }
}

MF_INLINE void mf_conv2d_s8_gap_body(const mf_conv2d_s8_gap_params *p, int kind, const int8_t *input,
                                     const int8_t *res, int8_t *output, int32_t *sums)
{
    mf_conv_s8_any one;
    one.conv = p->k;
    mf_gap_s8_loop(0, &one, &p->ep, &p->gap, kind, input, res, output, sums);
}

MF_INLINE void mf_dwconv2d_s8_gap_body(const mf_dwconv2d_s8_gap_params *p, int kind, const int8_t *input,
                                       const int8_t *res, int8_t *output, int32_t *sums)
{
    mf_conv_s8_any one;
    one.dw = p->k;
    mf_gap_s8_loop(1, &one, &p->ep, &p->gap, kind, input, res, output, sums);
}

void mf_conv2d_s8_gap(const mf_conv2d_s8_gap_params *p, const int8_t *input, int8_t *output, void *scratch)
{
    mf_conv2d_s8_gap_body(p, MF_EP_NONE, input, NULL, output, (int32_t *)scratch);
}

void mf_conv2d_s8_gap_lut(const mf_conv2d_s8_gap_params *p, const int8_t *input, int8_t *output, void *scratch)
{
    mf_conv2d_s8_gap_body(p, MF_EP_LUT, input, NULL, output, (int32_t *)scratch);
}

void mf_conv2d_s8_gap_add(const mf_conv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                          void *scratch)
{
    mf_conv2d_s8_gap_body(p, MF_EP_ADD, input, res, output, (int32_t *)scratch);
}

void mf_conv2d_s8_gap_sub(const mf_conv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                          void *scratch)
{
    mf_conv2d_s8_gap_body(p, MF_EP_SUB, input, res, output, (int32_t *)scratch);
}

void mf_conv2d_s8_gap_rsub(const mf_conv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                           void *scratch)
{
    mf_conv2d_s8_gap_body(p, MF_EP_RSUB, input, res, output, (int32_t *)scratch);
}

void mf_conv2d_s8_gap_mul(const mf_conv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                          void *scratch)
{
    mf_conv2d_s8_gap_body(p, MF_EP_MUL, input, res, output, (int32_t *)scratch);
}

void mf_dwconv2d_s8_gap(const mf_dwconv2d_s8_gap_params *p, const int8_t *input, int8_t *output, void *scratch)
{
    mf_dwconv2d_s8_gap_body(p, MF_EP_NONE, input, NULL, output, (int32_t *)scratch);
}

void mf_dwconv2d_s8_gap_lut(const mf_dwconv2d_s8_gap_params *p, const int8_t *input, int8_t *output, void *scratch)
{
    mf_dwconv2d_s8_gap_body(p, MF_EP_LUT, input, NULL, output, (int32_t *)scratch);
}

void mf_dwconv2d_s8_gap_add(const mf_dwconv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                            void *scratch)
{
    mf_dwconv2d_s8_gap_body(p, MF_EP_ADD, input, res, output, (int32_t *)scratch);
}

void mf_dwconv2d_s8_gap_sub(const mf_dwconv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                            void *scratch)
{
    mf_dwconv2d_s8_gap_body(p, MF_EP_SUB, input, res, output, (int32_t *)scratch);
}

void mf_dwconv2d_s8_gap_rsub(const mf_dwconv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                             void *scratch)
{
    mf_dwconv2d_s8_gap_body(p, MF_EP_RSUB, input, res, output, (int32_t *)scratch);
}

void mf_dwconv2d_s8_gap_mul(const mf_dwconv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                            void *scratch)
{
    mf_dwconv2d_s8_gap_body(p, MF_EP_MUL, input, res, output, (int32_t *)scratch);
}
