/* microfuse runtime: AVERAGE_POOL_2D and MAX_POOL_2D over NHWC tensors.
 *
 * Bit-exact with TFLite Micro's reference kernels: a window is clipped to the
 * image (padding is never read nor counted), so the int8 average divides by
 * the number of taps inside the image, rounding half away from zero.
 * Input and output share one quantization (TFLite requires it), so the int8
 * kernels only clamp to the fused activation's range.
 * Output pixels are visited in NHWC raster order (the memory planner relies
 * on it). */
#ifndef MF_POOL_H
#define MF_POOL_H

#include "mf_common.h"

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, channels;
    int32_t out_h, out_w;
    int32_t filter_h, filter_w;
    int32_t stride_h, stride_w;
    int32_t pad_h, pad_w;    /* padding before the first row / column */
    int32_t act_min, act_max;
    int32_t out_stride;      /* elements between output pixels: 0 = channels (dense) */
} mf_pool_s8_params;

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, channels;
    int32_t out_h, out_w;
    int32_t filter_h, filter_w;
    int32_t stride_h, stride_w;
    int32_t pad_h, pad_w;    /* padding before the first row / column */
    float act_min, act_max;
    int32_t out_stride;      /* elements between output pixels: 0 = channels (dense) */
} mf_pool_f32_params;

void mf_pool_avg_s8(const mf_pool_s8_params *p, const int8_t *input, int8_t *output);
void mf_pool_max_s8(const mf_pool_s8_params *p, const int8_t *input, int8_t *output);
void mf_pool_avg_f32(const mf_pool_f32_params *p, const float *input, float *output);
void mf_pool_max_f32(const mf_pool_f32_params *p, const float *input, float *output);

/* The part of a window inside the image: rows [y0, y1), columns [x0, x1). */
typedef struct {
    int32_t y0, y1, x0, x1;
} mf_pool_span;

/* Clip the filter_h x filter_w window whose top-left tap is (top, left). */
static inline mf_pool_span mf_pool_clip(int32_t top, int32_t left, int32_t filter_h, int32_t filter_w,
                                        int32_t in_h, int32_t in_w)
{
    mf_pool_span s;
    s.y0 = MF_MAX(top, 0);
    s.y1 = MF_MIN(top + filter_h, in_h);
    s.x0 = MF_MAX(left, 0);
    s.x1 = MF_MIN(left + filter_w, in_w);
    return s;
}

#endif /* MF_POOL_H */
