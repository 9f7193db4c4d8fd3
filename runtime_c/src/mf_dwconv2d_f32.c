/* DEPTHWISE_CONV_2D, float32: same summation order as TFLite's reference (taps y, then x). */
#include "mf_conv.h"

void mf_dwconv2d_f32(const mf_dwconv2d_f32_params *p, const float *input, float *output)
{
    float *out = output;
    int32_t n, oy, ox, oc, ky, kx;

    for (n = 0; n < p->batches; n++) {
        const float *image = input + n * p->in_h * p->in_w * p->in_c;
        for (oy = 0; oy < p->out_h; oy++) {
            const int32_t y0 = oy * p->stride_h - p->pad_h;
            for (ox = 0; ox < p->out_w; ox++) {
                const int32_t x0 = ox * p->stride_w - p->pad_w;
                for (oc = 0; oc < p->out_c; oc++) {
                    const float *channel = image + oc / p->depth_multiplier;
                    float total = 0.0f;
                    for (ky = 0; ky < p->k_h; ky++) {
                        const int32_t iy = y0 + ky * p->dilation_h;
                        for (kx = 0; kx < p->k_w; kx++) {
                            const int32_t ix = x0 + kx * p->dilation_w;
                            if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w) {
                                continue; /* zero padding */
                            }
                            total += channel[(iy * p->in_w + ix) * p->in_c] *
                                     p->weights[(ky * p->k_w + kx) * p->out_c + oc];
                        }
                    }
                    total += p->bias != NULL ? p->bias[oc] : 0.0f;
                    *out++ = MF_CLAMP(total, p->act_min, p->act_max);
                }
            }
        }
    }
}
