/* microfuse runtime: CONV_2D and DEPTHWISE_CONV_2D over NHWC tensors.
 *
 * Bit-exact with TFLite Micro's reference kernels. Everything constant is
 * prepared at compile time by microfuse/lower/conv.py:
 *  - padding (pad_h, pad_w) as TFLite's ComputePaddingHeightWidth gives it;
 *  - per-channel multipliers and shifts (a per-tensor filter scale is
 *    broadcast to every channel, as TFLite Micro does);
 *  - the int8 bias with the input offset folded in:
 *        bias[oc] = bias_tflite[oc] - in_zero_point * sum(weights[oc])
 *    so that the inner loop is a plain sum of weight * input. TFLite skips
 *    taps outside the image; here they read in_zero_point instead, which
 *    cancels their share of the folded term exactly (int32 arithmetic).
 * Output pixels are visited in NHWC raster order (the memory planner relies
 * on it). */
#ifndef MF_CONV_H
#define MF_CONV_H

#include "mf_common.h"

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_h, pad_w;    /* padding before the first row / column */
    int32_t in_zero_point;   /* value read for taps outside the image */
    int32_t out_zero_point;
    int32_t act_min, act_max; /* fused activation, quantized */
    const int8_t *weights;   /* [out_c][k_h][k_w][in_c] */
    const int32_t *bias;     /* [out_c], input offset folded in (never NULL) */
    const int32_t *mult;     /* [out_c] Q31 multipliers */
    const int32_t *shift;    /* [out_c] TFLite shifts (> 0: left) */
    int32_t out_stride;      /* elements between output pixels: 0 = out_c (dense); more when
                                the output is a channel slice of a wider tensor (concat) */
} mf_conv2d_s8_params;

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_h, pad_w;    /* padding before the first row / column */
    float act_min, act_max;
    const float *weights;    /* [out_c][k_h][k_w][in_c] */
    const float *bias;       /* [out_c] or NULL */
    int32_t out_stride;      /* elements between output pixels: 0 = out_c (dense); more when
                                the output is a channel slice of a wider tensor (concat) */
} mf_conv2d_f32_params;

/* Depthwise: output channel oc reads input channel oc / depth_multiplier. */
typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_h, pad_w;    /* padding before the first row / column */
    int32_t depth_multiplier;
    int32_t in_zero_point;
    int32_t out_zero_point;
    int32_t act_min, act_max;
    const int8_t *weights;   /* [k_h][k_w][out_c] */
    const int32_t *bias;     /* [out_c], input offset folded in (never NULL) */
    const int32_t *mult;
    const int32_t *shift;
    int32_t reverse;         /* 1: output pixels last to first (the planner placed the
                                output above its input: a backward run) */
    int32_t out_stride;      /* elements between output pixels: 0 = out_c (dense); more when
                                the output is a channel slice of a wider tensor (concat) */
} mf_dwconv2d_s8_params;

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_h, pad_w;    /* padding before the first row / column */
    int32_t depth_multiplier;
    float act_min, act_max;
    const float *weights;    /* [k_h][k_w][out_c] */
    const float *bias;       /* [out_c] or NULL */
    int32_t out_stride;      /* elements between output pixels: 0 = out_c (dense); more when
                                the output is a channel slice of a wider tensor (concat) */
} mf_dwconv2d_f32_params;

void mf_conv2d_s8(const mf_conv2d_s8_params *p, const int8_t *input, int8_t *output);
void mf_conv2d_f32(const mf_conv2d_f32_params *p, const float *input, float *output);
void mf_dwconv2d_s8(const mf_dwconv2d_s8_params *p, const int8_t *input, int8_t *output);
void mf_dwconv2d_f32(const mf_dwconv2d_f32_params *p, const float *input, float *output);

#endif /* MF_CONV_H */
