/* microfuse runtime (private): the pooling loops as always-inline bodies, instantiated by
 * mf_pool_*.c once per epilogue kind (mf_epilogue.h); MF_EP_NONE is the reference kernel.
 * A window is clipped to the image (padding is never read nor counted), as TFLite Micro does.
 * Output pixels are visited in NHWC raster order. */
#ifndef MF_POOL_BODY_H
#define MF_POOL_BODY_H

#include "mf_epilogue.h"
#include "mf_pool.h"

/* average: nonzero for AVERAGE_POOL_2D, zero for MAX_POOL_2D */
MF_INLINE void mf_pool_s8_body(const mf_pool_s8_params *p, int average, const mf_epilogue_s8 *e, int kind,
                               const int8_t *input, const int8_t *res, int8_t *output)
{
    const int32_t out_stride = p->out_stride ? p->out_stride : p->channels;
    int8_t *out = output;   /* the current output pixel (out_stride elements apart) */
    int32_t i = 0;           /* dense index of the output element: the residual's index */
    int32_t n, oy, ox, c, y, x;

    for (n = 0; n < p->batches; n++) {
        const int8_t *image = input + n * p->in_h * p->in_w * p->channels;
        for (oy = 0; oy < p->out_h; oy++) {
            for (ox = 0; ox < p->out_w; ox++) {
                const mf_pool_span s = mf_pool_clip(
                    oy * p->stride_h - p->pad_h, ox * p->stride_w - p->pad_w,
                    p->filter_h, p->filter_w, p->in_h, p->in_w);
                /* Only the taps inside the image count (a SAME border averages fewer). */
                const int32_t count = (s.y1 - s.y0) * (s.x1 - s.x0);
                for (c = 0; c < p->channels; c++) {
                    int32_t acc = average ? 0 : INT8_MIN;
                    for (y = s.y0; y < s.y1; y++) {
                        for (x = s.x0; x < s.x1; x++) {
                            const int32_t v = image[(y * p->in_w + x) * p->channels + c];
                            acc = average ? acc + v : MF_MAX(acc, v);
                        }
                    }
                    if (average) {
                        /* Round half away from zero; C division truncates toward zero. */
                        acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
                    }
                    acc = MF_CLAMP(acc, p->act_min, p->act_max);
                    out[c] = mf_ep_s8(e, kind, acc, res, i++);
                }
                out += out_stride;
            }
        }
    }
}

/* float32: sum in window order, then one division (as TFLite); or the maximum. */
MF_INLINE void mf_pool_f32_body(const mf_pool_f32_params *p, int average, const mf_epilogue_f32 *e, int kind,
                                const float *input, const float *res, float *output)
{
    const int32_t out_stride = p->out_stride ? p->out_stride : p->channels;
    float *out = output;    /* the current output pixel (out_stride elements apart) */
    int32_t i = 0;           /* dense index of the output element: the residual's index */
    int32_t n, oy, ox, c, y, x;

    for (n = 0; n < p->batches; n++) {
        const float *image = input + n * p->in_h * p->in_w * p->channels;
        for (oy = 0; oy < p->out_h; oy++) {
            for (ox = 0; ox < p->out_w; ox++) {
                const mf_pool_span s = mf_pool_clip(
                    oy * p->stride_h - p->pad_h, ox * p->stride_w - p->pad_w,
                    p->filter_h, p->filter_w, p->in_h, p->in_w);
                const float count = (float)((s.y1 - s.y0) * (s.x1 - s.x0));
                for (c = 0; c < p->channels; c++) {
                    float acc = average ? 0.0f : -FLT_MAX;
                    for (y = s.y0; y < s.y1; y++) {
                        for (x = s.x0; x < s.x1; x++) {
                            const float v = image[(y * p->in_w + x) * p->channels + c];
                            acc = average ? acc + v : (v > acc ? v : acc);
                        }
                    }
                    if (average) {
                        acc = acc / count;
                    }
                    acc = MF_CLAMP(acc, p->act_min, p->act_max);
                    out[c] = mf_ep_f32(e, kind, acc, res, i++);
                }
                out += out_stride;
            }
        }
    }
}

#endif /* MF_POOL_BODY_H */
