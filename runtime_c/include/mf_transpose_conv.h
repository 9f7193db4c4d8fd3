/* microfuse runtime: TRANSPOSE_CONV over NHWC tensors, bit-exact with TFLite Micro's reference
 * kernels (reference/transpose_conv.h, reference/integer_ops/transpose_conv.h).
 *
 * TFLM scatters: every input pixel adds its products into an output-sized scratch buffer. Here
 * each output pixel gathers the input pixels that reach it, so no scratch is needed; integer sums
 * are the same in any order, and the float sum visits the input pixels in TFLM's order (rows,
 * then columns, then channels, ascending). The padding is TFLM's (lower/tconv.py), the output
 * shape the output tensor's. The output may not overlap the input (no access order declared). */
#ifndef MF_TRANSPOSE_CONV_H
#define MF_TRANSPOSE_CONV_H

#include "mf_common.h"

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t pad_h, pad_w;     /* output rows / columns cut before the first one */
    int32_t in_zero_point;
    int32_t out_zero_point;
    int32_t act_min, act_max; /* the int8 range: TFLM applies no fused activation here */
    const int8_t *weights;    /* [out_c][k_h][k_w][in_c] */
    const int32_t *bias;      /* [out_c]; zeros when the model has none */
    const int32_t *mult;      /* [out_c] Q31 multipliers */
    const int32_t *shift;     /* [out_c] TFLite shifts (> 0: left) */
} mf_transpose_conv_s8_params;

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t pad_h, pad_w;
    float act_min, act_max;   /* fused activation */
    const float *weights;     /* [out_c][k_h][k_w][in_c] */
    const float *bias;        /* [out_c] or NULL */
} mf_transpose_conv_f32_params;

void mf_transpose_conv_s8(const mf_transpose_conv_s8_params *p, const int8_t *input, int8_t *output);
void mf_transpose_conv_f32(const mf_transpose_conv_f32_params *p, const float *input, float *output);

#endif /* MF_TRANSPOSE_CONV_H */
