/* microfuse runtime (private): the CONV_2D and DEPTHWISE_CONV_2D loops, one always-inline body
 * per kernel, instantiated by mf_*conv2d_*.c once per epilogue kind (mf_epilogue.h). With
 * kind MF_EP_NONE the body is exactly the reference kernel. Output pixels are visited in NHWC
 * raster order; with an epilogue, residual element i is read right before output element i
 * is stored. */
#ifndef MF_CONV_BODY_H
#define MF_CONV_BODY_H

#include "mf_conv.h"
#include "mf_epilogue.h"

MF_INLINE void mf_conv2d_s8_body(const mf_conv2d_s8_params *p, const mf_epilogue_s8 *e, int kind,
                                 const int8_t *input, const int8_t *res, int8_t *output)
{
    const int32_t pixel = p->in_c;
    const int32_t filter_size = p->k_h * p->k_w * p->in_c;
    const int32_t out_stride = p->out_stride ? p->out_stride : p->out_c;
    int8_t *out = output;    /* the current output pixel (out_stride elements apart) */
    int32_t i = 0;           /* dense index of the output element: the residual's index */
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
                    acc = MF_CLAMP(acc, p->act_min, p->act_max);
                    out[oc] = mf_ep_s8(e, kind, acc, res, i++);
                }
                out += out_stride;
            }
        }
    }
}

MF_INLINE void mf_dwconv2d_s8_body(const mf_dwconv2d_s8_params *p, const mf_epilogue_s8 *e, int kind,
                                   const int8_t *input, const int8_t *res, int8_t *output)
{
    const int32_t pixels = p->batches * p->out_h * p->out_w;
    const int32_t out_stride = p->out_stride ? p->out_stride : p->out_c;
    int32_t q, oc, ky, kx;

    /* One output pixel at a time, in raster order or (p->reverse) its exact opposite: the
     * memory planner may overlap the output with the input relying on that order. */
    for (q = 0; q < pixels; q++) {
        const int32_t pixel = p->reverse ? pixels - 1 - q : q;
        const int32_t ox = pixel % p->out_w;
        const int32_t oy = pixel / p->out_w % p->out_h;
        const int32_t n = pixel / (p->out_w * p->out_h);
        const int8_t *image = input + n * p->in_h * p->in_w * p->in_c;
        const int32_t y0 = oy * p->stride_h - p->pad_h;
        const int32_t x0 = ox * p->stride_w - p->pad_w;
        const int32_t base = pixel * p->out_c; /* dense index: the residual's */
        int8_t *out = output + pixel * out_stride;
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
            acc = MF_CLAMP(acc, p->act_min, p->act_max);
            out[oc] = mf_ep_s8(e, kind, acc, res, base + oc);
        }
    }
}

/* float32: same summation order as TFLite's reference (taps y, x, then channels). */
MF_INLINE void mf_conv2d_f32_body(const mf_conv2d_f32_params *p, const mf_epilogue_f32 *e, int kind,
                                  const float *input, const float *res, float *output)
{
    const int32_t pixel = p->in_c;
    const int32_t filter_size = p->k_h * p->k_w * p->in_c;
    const int32_t out_stride = p->out_stride ? p->out_stride : p->out_c;
    float *out = output;     /* the current output pixel (out_stride elements apart) */
    int32_t i = 0;           /* dense index of the output element: the residual's index */
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
                    total = MF_CLAMP(total, p->act_min, p->act_max);
                    out[oc] = mf_ep_f32(e, kind, total, res, i++);
                }
                out += out_stride;
            }
        }
    }
}

/* float32: same summation order as TFLite's reference (taps y, then x). */
MF_INLINE void mf_dwconv2d_f32_body(const mf_dwconv2d_f32_params *p, const mf_epilogue_f32 *e, int kind,
                                    const float *input, const float *res, float *output)
{
    const int32_t out_stride = p->out_stride ? p->out_stride : p->out_c;
    float *out = output;     /* the current output pixel (out_stride elements apart) */
    int32_t i = 0;           /* dense index of the output element: the residual's index */
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
                    total = MF_CLAMP(total, p->act_min, p->act_max);
                    out[oc] = mf_ep_f32(e, kind, total, res, i++);
                }
                out += out_stride;
            }
        }
    }
}

#endif /* MF_CONV_BODY_H */
