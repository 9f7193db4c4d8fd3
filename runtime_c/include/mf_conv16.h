/* microfuse runtime: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and TRANSPOSE_CONV with int16
 * activations and int8 weights ("16x8"), bit-exact with TFLite Micro's int16 reference kernels
 * (reference/integer_ops/conv.h, depthwise_conv.h, fully_connected.h, transpose_conv.h).
 *
 * Where the 16x8 path differs from the int8 one (TFLM's):
 *  - no input or output offset: int16 zero points are 0 (the constraints check it);
 *  - the accumulator is int64 with an int64 bias, and the output is scaled by the int64
 *    MultiplyByQuantizedMultiplier (the multiplier rounded to 16 bits, one rounding shift);
 *    an int32 bias keeps TFLM's int32 accumulator and the int8 requantization (`wide` = 0).
 * The bias is never NULL (zeros when the model has none); a per-tensor filter scale is
 * broadcast to every channel at compile time. Output pixels are written in NHWC raster order
 * (FC: row by row), `out_stride` elements apart (0: dense). */
#ifndef MF_CONV16_H
#define MF_CONV16_H

#include "mf_common.h"

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_h, pad_w;     /* padding before the first row / column */
    int32_t act_min, act_max; /* fused activation, quantized */
    int32_t wide;             /* 1: int64 bias (TFLM's int64 path); 0: int32 bias */
    const int8_t *weights;    /* [out_c][k_h][k_w][in_c] */
    const int64_t *bias;      /* [out_c] */
    const int32_t *mult;      /* [out_c] Q31 multipliers */
    const int32_t *shift;     /* [out_c] TFLite shifts (> 0: left) */
    int32_t out_stride;
} mf_conv2d_s16_params;

/* Depthwise: output channel oc reads input channel oc / depth_multiplier. */
typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_h, pad_w;
    int32_t depth_multiplier;
    int32_t act_min, act_max;
    int32_t wide;
    const int8_t *weights;    /* [k_h][k_w][out_c] */
    const int64_t *bias;
    const int32_t *mult;
    const int32_t *shift;
    int32_t out_stride;
} mf_dwconv2d_s16_params;

typedef struct {
    int32_t rows, depth, units;
    int32_t act_min, act_max;
    int32_t wide;
    const int8_t *weights;    /* [units][depth] */
    const int64_t *bias;      /* [units] */
    const int32_t *mult;      /* [units] */
    const int32_t *shift;
    int32_t out_stride;       /* elements between output rows: 0 = units */
} mf_fc_s16_params;

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t pad_h, pad_w;
    int32_t act_min, act_max; /* the int16 range: TFLM applies no fused activation here */
    const int8_t *weights;    /* [out_c][k_h][k_w][in_c] */
    const int64_t *bias;      /* [out_c]; TFLM widens an int16 bias to int64 */
    const int32_t *mult;
    const int32_t *shift;
} mf_transpose_conv_s16_params;

void mf_conv2d_s16(const mf_conv2d_s16_params *p, const int16_t *input, int16_t *output);
void mf_dwconv2d_s16(const mf_dwconv2d_s16_params *p, const int16_t *input, int16_t *output);
void mf_fc_s16(const mf_fc_s16_params *p, const int16_t *input, int16_t *output);
void mf_transpose_conv_s16(const mf_transpose_conv_s16_params *p, const int16_t *input, int16_t *output);

/* TFLM's MultiplyByQuantizedMultiplier(int64_t x, ...): the Q31 multiplier rounded to Q15, then
 * one rounding right shift by 15 - shift (shift in -31..7). */
static inline int32_t mf_requantize64(int64_t x, int32_t multiplier, int32_t shift)
{
    const int64_t reduced = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
    const int total = 15 - shift;
    return (int32_t)((x * reduced + ((int64_t)1 << (total - 1))) >> total);
}

/* The 16x8 output stage of one accumulator (bias added), clamped to the activation range. */
static inline int16_t mf_out_s16(int64_t acc, int32_t wide, int32_t mult, int32_t shift, int32_t lo, int32_t hi)
{
    /* int32 bias: TFLM accumulates in int32 (the cast is its wrap-around) */
    const int32_t v = wide ? mf_requantize64(acc, mult, shift) : mf_requantize((int32_t)acc, mult, shift);
    return (int16_t)MF_CLAMP(v, lo, hi);
}

#endif /* MF_CONV16_H */
