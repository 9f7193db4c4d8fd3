/* DEPTHWISE_CONV_2D, int8 activations and weights, per-channel requantization. */
#include "mf_conv.h"

void mf_dwconv2d_s8(const mf_dwconv2d_s8_params *p, const int8_t *input, int8_t *output)
{
    const int32_t pixels = p->batches * p->out_h * p->out_w;
    int32_t q, oc, ky, kx;

    /* One output pixel at a time, in raster order or (reverse) its exact opposite: the
     * memory planner may overlap the output with the input relying on that order. */
    for (q = 0; q < pixels; q++) {
        const int32_t pixel = p->reverse ? pixels - 1 - q : q;
        const int32_t ox = pixel % p->out_w;
        const int32_t oy = pixel / p->out_w % p->out_h;
        const int32_t n = pixel / (p->out_w * p->out_h);
        const int8_t *image = input + n * p->in_h * p->in_w * p->in_c;
        const int32_t y0 = oy * p->stride_h - p->pad_h;
        const int32_t x0 = ox * p->stride_w - p->pad_w;
        int8_t *out = output + pixel * p->out_c;
        for (oc = 0; oc < p->out_c; oc++) {
            const int8_t *channel = image + oc / p->depth_multiplier;
            int32_t acc = p->bias[oc];
            for (ky = 0; ky < p->k_h; ky++) {
                const int32_t iy = y0 + ky * p->dilation_h;
                for (kx = 0; kx < p->k_w; kx++) {
                    const int32_t ix = x0 + kx * p->dilation_w;
                    const int32_t w = p->weights[(ky * p->k_w + kx) * p->out_c + oc];
                    /* Padding reads the zero point: it adds nothing after the fold. */
                    const int32_t x = (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w)
                        ? p->in_zero_point : channel[(iy * p->in_w + ix) * p->in_c];
                    acc += w * x;
                }
            }
            acc = mf_requantize(acc, p->mult[oc], p->shift[oc]) + p->out_zero_point;
            out[oc] = (int8_t)MF_CLAMP(acc, p->act_min, p->act_max);
        }
    }
}
