/* microfuse runtime: a CONV_2D / DEPTHWISE_CONV_2D fused with the global AVERAGE_POOL_2D or
 * MEAN over height and width that reads it (microfuse/passes/pool_fuse.py), so the conv's
 * output tensor is never stored whole.
 *
 * The kernel runs the unfused conv kernel's own loop (mf_conv_body.h, with its epilogue) on
 * one output pixel at a time, stores that pixel's channels in the output buffer (it holds
 * exactly one pixel per image), adds them to int32 (float) sums in the scratch buffer
 * (4 * out_c bytes), and after the last pixel applies the pool's or MEAN's arithmetic:
 *   AVERAGE_POOL_2D int8: (sum +- count / 2) / count, clamped to its activation;
 *   MEAN int8:            requantize(sum - zero_point * count) + zero point, clamped to int8;
 *   float:                sum / count (summed in pixel raster order, as the pool and MEAN do).
 * The values summed are the int8 (float) values the unfused conv would have stored, so the
 * result is bit-exact with the unfused pair. The output must not overlap any input (the
 * planner never overlaps these ops). */
#ifndef MF_GAP_H
#define MF_GAP_H

#include "mf_conv.h"
#include "mf_epilogue.h"

typedef struct {
    int32_t count;            /* pixels per image (the conv's out_h * out_w) */
    int32_t mean;             /* 0: AVERAGE_POOL_2D's rounding, 1: MEAN's requantization */
    int32_t act_min, act_max; /* AVERAGE_POOL_2D: its fused activation, quantized */
    int32_t in_zero_point;    /* MEAN: its input's zero point */
    int32_t multiplier, shift; /* MEAN: scale ratio with 1 / count folded in */
    int32_t out_zero_point;   /* MEAN */
} mf_gap_s8;

typedef struct {
    int32_t count;
    float act_min, act_max;   /* AVERAGE_POOL_2D's activation (MEAN: none) */
} mf_gap_f32;

typedef struct { mf_conv2d_s8_params k; mf_epilogue_s8 ep; mf_gap_s8 gap; } mf_conv2d_s8_gap_params;
typedef struct { mf_dwconv2d_s8_params k; mf_epilogue_s8 ep; mf_gap_s8 gap; } mf_dwconv2d_s8_gap_params;
typedef struct { mf_conv2d_f32_params k; mf_epilogue_f32 ep; mf_gap_f32 gap; } mf_conv2d_f32_gap_params;
typedef struct { mf_dwconv2d_f32_params k; mf_epilogue_f32 ep; mf_gap_f32 gap; } mf_dwconv2d_f32_gap_params;

void mf_conv2d_s8_gap(const mf_conv2d_s8_gap_params *p, const int8_t *input, int8_t *output, void *scratch);
void mf_conv2d_s8_gap_lut(const mf_conv2d_s8_gap_params *p, const int8_t *input, int8_t *output, void *scratch);
void mf_conv2d_s8_gap_add(const mf_conv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                          void *scratch);
void mf_conv2d_s8_gap_sub(const mf_conv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                          void *scratch);
void mf_conv2d_s8_gap_rsub(const mf_conv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                           void *scratch);
void mf_conv2d_s8_gap_mul(const mf_conv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                          void *scratch);
void mf_dwconv2d_s8_gap(const mf_dwconv2d_s8_gap_params *p, const int8_t *input, int8_t *output, void *scratch);
void mf_dwconv2d_s8_gap_lut(const mf_dwconv2d_s8_gap_params *p, const int8_t *input, int8_t *output, void *scratch);
void mf_dwconv2d_s8_gap_add(const mf_dwconv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                            void *scratch);
void mf_dwconv2d_s8_gap_sub(const mf_dwconv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                            void *scratch);
void mf_dwconv2d_s8_gap_rsub(const mf_dwconv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                             void *scratch);
void mf_dwconv2d_s8_gap_mul(const mf_dwconv2d_s8_gap_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                            void *scratch);

void mf_conv2d_f32_gap(const mf_conv2d_f32_gap_params *p, const float *input, float *output, void *scratch);
void mf_conv2d_f32_gap_ep(const mf_conv2d_f32_gap_params *p, const float *input, float *output, void *scratch);
void mf_conv2d_f32_gap_ep_res(const mf_conv2d_f32_gap_params *p, const float *input, const float *res, float *output,
                              void *scratch);
void mf_dwconv2d_f32_gap(const mf_dwconv2d_f32_gap_params *p, const float *input, float *output, void *scratch);
void mf_dwconv2d_f32_gap_ep(const mf_dwconv2d_f32_gap_params *p, const float *input, float *output, void *scratch);
void mf_dwconv2d_f32_gap_ep_res(const mf_dwconv2d_f32_gap_params *p, const float *input, const float *res, float *output,
                                void *scratch);

#endif /* MF_GAP_H */
