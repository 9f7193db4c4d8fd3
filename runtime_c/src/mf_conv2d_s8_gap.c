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
MF_INLINE void mf_gap_s8_loop(int dw, const mf_conv_s8_any *k, mf_conv_s8_any *one,
                              const mf_epilogue_s8 *ep, const mf_gap_s8 *g, int kind,
                              const int8_t *input, const int8_t *res, int8_t *output, int32_t *sums)
{
    const mf_epilogue_s8 e = *ep;
    int32_t n, oy, ox, c;
    mf_conv_s8_part(dw, one, 1, 1);
    for (n = 0; n < k->conv.batches; n++) {
        int8_t *out = output + n * k->conv.out_c;
        for (c = 0; c < k->conv.out_c; c++) {
            sums[c] = 0;
        }
        for (oy = 0; oy < k->conv.out_h; oy++) {
            for (ox = 0; ox < k->conv.out_w; ox++) {
                const int32_t pixel = (n * k->conv.out_h + oy) * k->conv.out_w + ox;
                mf_conv_s8_run(dw, one, k->conv.pad_h - oy * k->conv.stride_h,
                               k->conv.pad_w - ox * k->conv.stride_w, &e, kind, input + n * mf_conv_s8_image(k),
                               res != NULL ? res + pixel * k->conv.out_c : NULL, out);
                for (c = 0; c < k->conv.out_c; c++) {
                    sums[c] += out[c];
                }
            }
        }
        mf_gap_s8_finish(g, sums, out, k->conv.out_c);
    }
}

MF_INLINE void mf_conv2d_s8_gap_body(const mf_conv2d_s8_gap_params *p, int kind, const int8_t *input,
                                     const int8_t *res, int8_t *output, int32_t *sums)
{
    mf_conv_s8_any one;
    one.conv = p->k;
    mf_gap_s8_loop(0, mf_conv_s8_view(&p->k), &one, &p->ep, &p->gap, kind, input, res, output, sums);
}

MF_INLINE void mf_dwconv2d_s8_gap_body(const mf_dwconv2d_s8_gap_params *p, int kind, const int8_t *input,
                                       const int8_t *res, int8_t *output, int32_t *sums)
{
    mf_conv_s8_any one;
    one.dw = p->k;
    mf_gap_s8_loop(1, mf_conv_s8_view(&p->k), &one, &p->ep, &p->gap, kind, input, res, output, sums);
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
