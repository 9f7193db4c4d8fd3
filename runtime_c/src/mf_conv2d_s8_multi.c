/* CONV_2D int8, horizontally fused siblings (mf_multi.h): one pass over the output pixels,
 * every sibling's channels per pixel, each range stored to its own output. */
#include "mf_multi.h"

/* The accumulator of channel oc at the window whose top-left tap is (y0, x0): the loop of
 * mf_conv2d_s8 (padding taps read the input zero point, which cancels after the bias fold). */
static int32_t mf_conv_s8_channel(const mf_conv2d_s8_params *p, const int8_t *image, int32_t y0, int32_t x0,
                                  int32_t oc)
{
    const int32_t pixel = p->in_c;
    const int8_t *w = p->weights + oc * p->k_h * p->k_w * pixel;
    int32_t acc = p->bias[oc];
    int32_t ky, kx, c;
    for (ky = 0; ky < p->k_h; ky++) {
        const int32_t iy = y0 + ky * p->dilation_h;
        for (kx = 0; kx < p->k_w; kx++, w += pixel) {
            const int32_t ix = x0 + kx * p->dilation_w;
            if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w) {
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
    return acc;
}

static void mf_conv2d_s8_multi(const mf_conv2d_s8_multi_params *p, const int8_t *input, int8_t *const *outs)
{
    const mf_conv2d_s8_params *k = &p->k;
    const mf_multi_outputs *o = &p->o;
    int32_t n, oy, ox, r, j, q = 0;

    for (n = 0; n < k->batches; n++) {
        const int8_t *image = input + n * k->in_h * k->in_w * k->in_c;
        for (oy = 0; oy < k->out_h; oy++) {
            for (ox = 0; ox < k->out_w; ox++, q++) {
                int32_t oc = 0;
                for (r = 0; r < o->n_outputs; r++) {
                    int8_t *out = outs[r] + q * (o->out_stride[r] ? o->out_stride[r] : o->out_c[r]);
                    for (j = 0; j < o->out_c[r]; j++, oc++) {
                        int32_t acc = mf_conv_s8_channel(k, image, oy * k->stride_h - k->pad_h,
                                                         ox * k->stride_w - k->pad_w, oc);
                        acc = mf_requantize(acc, k->mult[oc], k->shift[oc]) + o->out_zero_point[r];
                        out[j] = (int8_t)MF_CLAMP(acc, o->act_min[r], o->act_max[r]);
                    }
                }
            }
        }
    }
}

void mf_conv2d_s8_x2(const mf_conv2d_s8_multi_params *p, const int8_t *input, int8_t *out0, int8_t *out1)
{
    int8_t *const outs[2] = {out0, out1};
    mf_conv2d_s8_multi(p, input, outs);
}

void mf_conv2d_s8_x3(const mf_conv2d_s8_multi_params *p, const int8_t *input, int8_t *out0, int8_t *out1,
                     int8_t *out2)
{
    int8_t *const outs[3] = {out0, out1, out2};
    mf_conv2d_s8_multi(p, input, outs);
}

void mf_conv2d_s8_x4(const mf_conv2d_s8_multi_params *p, const int8_t *input, int8_t *out0, int8_t *out1,
                     int8_t *out2, int8_t *out3)
{
    int8_t *const outs[4] = {out0, out1, out2, out3};
    mf_conv2d_s8_multi(p, input, outs);
}
