/* CONV_2D, float32: same summation order as TFLite's reference (taps y, x, then channels). */
#include "mf_conv.h"

void mf_conv2d_f32(const mf_conv2d_f32_params *p, const float *input, float *output)
{
    const int32_t pixel = p->in_c;
    const int32_t filter_size = p->k_h * p->k_w * p->in_c;
    float *out = output;
    int32_t n, oy, ox, oc, ky, kx, c;

    for (n = 0; n < p->batches; n++) {
        const float *image = input + n * p->in_h * p->in_w * pixel;
        for (oy = 0; oy < p->out_h; oy++) {
            const int32_t y0 = oy * p->stride_h - p->pad_h;
            for (ox = 0; ox < p->out_w; ox++) {
                const int32_t x0 = ox * p->stride_w - p->pad_w;
                for (oc = 0; oc < p->out_c; oc++) {
                    const float *w = p->weights + oc * filter_size;
                    float total = 0.0f;
                    for (ky = 0; ky < p->k_h; ky++) {
                        const int32_t iy = y0 + ky * p->dilation_h;
                        for (kx = 0; kx < p->k_w; kx++, w += pixel) {
                            const int32_t ix = x0 + kx * p->dilation_w;
                            const float *x;
                            if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w) {
                                continue; /* zero padding */
                            }
                            x = image + (iy * p->in_w + ix) * pixel;
                            for (c = 0; c < pixel; c++) {
                                total += x[c] * w[c];
                            }
                        }
                    }
                    total += p->bias != NULL ? p->bias[oc] : 0.0f;
                    *out++ = MF_CLAMP(total, p->act_min, p->act_max);
                }
            }
        }
    }
}
