/* CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, 16x8: see mf_conv16.h. Loops in TFLM's order. */
#include "mf_conv16.h"

void mf_conv2d_s16(const mf_conv2d_s16_params *p, const int16_t *input, int16_t *output)
{
    const int32_t step = p->out_stride ? p->out_stride : p->out_c;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *in = input + (size_t)b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += step) {
                const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                for (int32_t oc = 0; oc < p->out_c; ++oc) {
                    int64_t acc = 0;
                    for (int32_t ky = 0; ky < p->k_h; ++ky) {
                        const int32_t iy = y0 + ky * p->dilation_h;
                        if (iy < 0 || iy >= p->in_h) {
                            continue;
                        }
                        for (int32_t kx = 0; kx < p->k_w; ++kx) {
                            const int32_t ix = x0 + kx * p->dilation_w;
                            if (ix < 0 || ix >= p->in_w) {
                                continue;
                            }
                            const int16_t *x = in + ((size_t)iy * p->in_w + ix) * p->in_c;
                            const int8_t *w = p->weights + (((size_t)oc * p->k_h + ky) * p->k_w + kx) * p->in_c;
                            for (int32_t ic = 0; ic < p->in_c; ++ic) {
                                acc += (int32_t)x[ic] * w[ic];
                            }
                        }
                    }
                    output[oc] = mf_out_s16(acc + p->bias[oc], p->wide, p->mult[oc], p->shift[oc],
                                            p->act_min, p->act_max);
                }
            }
        }
    }
}

void mf_dwconv2d_s16(const mf_dwconv2d_s16_params *p, const int16_t *input, int16_t *output)
{
    const int32_t step = p->out_stride ? p->out_stride : p->out_c;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *in = input + (size_t)b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += step) {
                const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                for (int32_t oc = 0; oc < p->out_c; ++oc) {
                    const int32_t ic = oc / p->depth_multiplier;
                    int64_t acc = 0;
                    for (int32_t ky = 0; ky < p->k_h; ++ky) {
                        const int32_t iy = y0 + ky * p->dilation_h;
                        if (iy < 0 || iy >= p->in_h) {
                            continue;
                        }
                        for (int32_t kx = 0; kx < p->k_w; ++kx) {
                            const int32_t ix = x0 + kx * p->dilation_w;
                            if (ix >= 0 && ix < p->in_w) {
                                acc += (int32_t)in[((size_t)iy * p->in_w + ix) * p->in_c + ic]
                                       * p->weights[((size_t)ky * p->k_w + kx) * p->out_c + oc];
                            }
                        }
                    }
                    output[oc] = mf_out_s16(acc + p->bias[oc], p->wide, p->mult[oc], p->shift[oc],
                                            p->act_min, p->act_max);
                }
            }
        }
    }
}

void mf_fc_s16(const mf_fc_s16_params *p, const int16_t *input, int16_t *output)
{
    const int32_t step = p->out_stride ? p->out_stride : p->units;
    for (int32_t r = 0; r < p->rows; ++r, input += p->depth, output += step) {
        for (int32_t u = 0; u < p->units; ++u) {
            const int8_t *w = p->weights + (size_t)u * p->depth;
            int64_t acc = 0;
            for (int32_t d = 0; d < p->depth; ++d) {
                acc += (int32_t)input[d] * w[d];
            }
            output[u] = mf_out_s16(acc + p->bias[u], p->wide, p->mult[u], p->shift[u], p->act_min, p->act_max);
        }
    }
}
