/* microfuse runtime (private): the pooling loops as always-inline bodies, instantiated by
 * mf_pool_*.c once per epilogue kind (mf_epilogue.h); MF_EP_NONE is the reference kernel.
 * A window is clipped to the image (padding is never read nor counted), as TFLite Micro does.
 * Output pixels are visited in NHWC raster order. */
#ifndef MF_POOL_BODY_H
#define MF_POOL_BODY_H

#include "mf_epilogue.h"
#include "mf_isa.h"
#include "mf_pool.h"

/* An int16 lane holds the sum of this many int8 taps (-128 * 256 = INT16_MIN). */
#define MF_POOL_LANE_TAPS 256

/* The window sums of channels c .. c + 3 at once: per tap one word of the four, its bytes added
 * into int16 lanes (SXTAB16: channels c, c + 2 in one word, c + 1, c + 3 in the other), so a
 * tap costs a load and two adds instead of four loads and four adds; at most MF_POOL_LANE_TAPS
 * taps. */
MF_INLINE void mf_pool_sum4(const int8_t *image, int32_t in_w, int32_t channels, mf_pool_span s, int32_t c,
                            int32_t *acc)
{
    uint32_t even = 0, odd = 0;
    int32_t y, x;
    for (y = s.y0; y < s.y1; y++) {
        const int8_t *tap = image + (y * in_w + s.x0) * channels + c;
        for (x = s.x0; x < s.x1; x++, tap += channels) {
            const uint32_t v = mf_load32(tap);
            even = mf_sxtab16(even, v);
            odd = mf_sxtab16_ror8(odd, v);
        }
    }
    acc[0] = (int16_t)(uint16_t)(even & 0xFFFFu);
    acc[1] = (int16_t)(uint16_t)(odd & 0xFFFFu);
    acc[2] = (int16_t)(uint16_t)(even >> 16);
    acc[3] = (int16_t)(uint16_t)(odd >> 16);
}

/* average: nonzero for AVERAGE_POOL_2D, zero for MAX_POOL_2D */
MF_INLINE void mf_pool_s8_body(const mf_pool_s8_params *p, int average, const mf_epilogue_s8 *e, int kind,
                               const int8_t *input, const int8_t *res, int8_t *output)
{
    const int32_t out_stride = p->out_stride ? p->out_stride : p->channels;
    int8_t *out = output;   /* the current output pixel (out_stride elements apart) */
    int32_t i = 0;           /* dense index of the output element: the residual's index */
    int32_t n, oy, ox, c, y, x, j, group;

    for (n = 0; n < p->batches; n++) {
        const int8_t *image = input + n * p->in_h * p->in_w * p->channels;
        for (oy = 0; oy < p->out_h; oy++) {
            for (ox = 0; ox < p->out_w; ox++) {
                const mf_pool_span s = mf_pool_clip(
                    oy * p->stride_h - p->pad_h, ox * p->stride_w - p->pad_w,
                    p->filter_h, p->filter_w, p->in_h, p->in_w);
                /* Only the taps inside the image count (a SAME border averages fewer). */
                const int32_t count = (s.y1 - s.y0) * (s.x1 - s.x0);
                for (c = 0; c < p->channels; c += group) {
                    int32_t acc[4];
                    group = average && count <= MF_POOL_LANE_TAPS && p->channels - c >= 4 ? 4 : 1;
                    if (group == 4) {
                        mf_pool_sum4(image, p->in_w, p->channels, s, c, acc);
                    } else {
                        acc[0] = average ? 0 : INT8_MIN;
                        for (y = s.y0; y < s.y1; y++) {
                            for (x = s.x0; x < s.x1; x++) {
                                const int32_t v = image[(y * p->in_w + x) * p->channels + c];
                                acc[0] = average ? acc[0] + v : MF_MAX(acc[0], v);
                            }
                        }
                    }
                    for (j = 0; j < group; j++) {
                        int32_t v = acc[j];
                        if (average) {
                            /* Round half away from zero; C division truncates toward zero. */
                            v = v > 0 ? (v + count / 2) / count : (v - count / 2) / count;
                        }
                        v = MF_CLAMP(v, p->act_min, p->act_max);
                        out[c + j] = mf_ep_s8(e, kind, v, res, i++);
                    }
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
