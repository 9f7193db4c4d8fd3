/* CONV_2D, int8 activations and weights, per-channel requantization. */
#include "mf_conv.h"

void mf_conv2d_s8(const mf_conv2d_s8_params *p, const int8_t *input, int8_t *output)
{
    const int32_t pixel = p->in_c;
    const int32_t filter_size = p->k_h * p->k_w * p->in_c;
    int8_t *out = output;
    int32_t n, oy, ox, oc, ky, kx, c;

    for (n = 0; n < p->batches; n++) {
        const int8_t *image = input + n * p->in_h * p->in_w * pixel;
        for (oy = 0; oy < p->out_h; oy++) {
            const int32_t y0 = oy * p->stride_h - p->pad_h;
            for (ox = 0; ox < p->out_w; ox++) {
                const int32_t x0 = ox * p->stride_w - p->pad_w;
                for (oc = 0; oc < p->out_c; oc++) {
                    const int8_t *w = p->weights + oc * filter_size;
                    int32_t acc = p->bias[oc];
                    for (ky = 0; ky < p->k_h; ky++) {
                        const int32_t iy = y0 + ky * p->dilation_h;
                        for (kx = 0; kx < p->k_w; kx++, w += pixel) {
                            const int32_t ix = x0 + kx * p->dilation_w;
                            if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w) {
                                /* Padding reads the zero point: it adds nothing after the fold. */
                                for (c = 0; c < pixel; c++) {
                                    acc += w[c] * p->in_zero_point;
                                }
                                continue;
                            }
                            {
                                const int8_t *x = image + (iy * p->in_w + ix) * pixel;
                                for (c = 0; c < pixel; c++) {
                                    acc += w[c] * x[c];
                                }
                            }
                        }
                    }
                    acc = mf_requantize(acc, p->mult[oc], p->shift[oc]) + p->out_zero_point;
                    *out++ = (int8_t)MF_CLAMP(acc, p->act_min, p->act_max);
                }
            }
        }
    }
}
