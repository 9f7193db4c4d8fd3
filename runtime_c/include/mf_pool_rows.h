/* microfuse runtime: a CONV_2D / DEPTHWISE_CONV_2D fused with the MAX_POOL_2D or
 * AVERAGE_POOL_2D that reads it (microfuse/passes/pool_rows.py), so the conv's output tensor
 * is never stored whole.
 *
 * The kernel computes the conv output one row at a time with the unfused conv kernel's own
 * loop (mf_conv_body.h, with its epilogue: the int8 / float values the unfused conv would
 * have stored) into a ring of `ring_rows` rows in the scratch buffer
 * (ring_rows * conv out_w * out_c elements; ring_rows = min(filter_h, conv out_h)). Conv row r
 * lives in ring slot r % ring_rows. Pooled rows are produced in order: pooled row py needs
 * the conv rows of its window clipped to the image; the rows not yet computed are computed
 * (each exactly once; rows no window reads are never computed), then the whole pooled row is
 * emitted with the pool's own arithmetic (mf_pool_body.h): only in-image taps count; int8
 * average rounds half away from zero, max starts at INT8_MIN; then the pool's activation
 * clamp. Float averages sum in window order (rows, then columns) and divide once.
 * A row being computed never overwrites a row the current window still needs, since the
 * window spans at most filter_h rows. The output must not overlap any input (the planner
 * never overlaps these ops). */
#ifndef MF_POOL_ROWS_H
#define MF_POOL_ROWS_H

#include "mf_conv.h"
#include "mf_epilogue.h"

typedef struct {
    int32_t average;          /* 1: AVERAGE_POOL_2D, 0: MAX_POOL_2D */
    int32_t out_h, out_w;     /* the pooled output */
    int32_t filter_h, filter_w;
    int32_t stride_h, stride_w;
    int32_t pad_h, pad_w;     /* the pool's padding before the first row / column */
    int32_t ring_rows;        /* conv rows held in scratch */
    int32_t act_min, act_max; /* the pool's fused activation, quantized */
    int32_t out_stride;       /* elements between pooled output pixels: 0 = channels (dense) */
} mf_pool_rows_s8;

typedef struct {
    int32_t average;
    int32_t out_h, out_w;
    int32_t filter_h, filter_w;
    int32_t stride_h, stride_w;
    int32_t pad_h, pad_w;
    int32_t ring_rows;
    float act_min, act_max;
    int32_t out_stride;
} mf_pool_rows_f32;

typedef struct { mf_conv2d_s8_params k; mf_epilogue_s8 ep; mf_pool_rows_s8 pool; } mf_conv2d_s8_pool_params;
typedef struct { mf_dwconv2d_s8_params k; mf_epilogue_s8 ep; mf_pool_rows_s8 pool; } mf_dwconv2d_s8_pool_params;
typedef struct { mf_conv2d_f32_params k; mf_epilogue_f32 ep; mf_pool_rows_f32 pool; } mf_conv2d_f32_pool_params;
typedef struct { mf_dwconv2d_f32_params k; mf_epilogue_f32 ep; mf_pool_rows_f32 pool; } mf_dwconv2d_f32_pool_params;

void mf_conv2d_s8_pool(const mf_conv2d_s8_pool_params *p, const int8_t *input, int8_t *output, void *scratch);
void mf_conv2d_s8_pool_lut(const mf_conv2d_s8_pool_params *p, const int8_t *input, int8_t *output, void *scratch);
void mf_conv2d_s8_pool_add(const mf_conv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                           void *scratch);
void mf_conv2d_s8_pool_sub(const mf_conv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                           void *scratch);
void mf_conv2d_s8_pool_rsub(const mf_conv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                            void *scratch);
void mf_conv2d_s8_pool_mul(const mf_conv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                           void *scratch);
void mf_dwconv2d_s8_pool(const mf_dwconv2d_s8_pool_params *p, const int8_t *input, int8_t *output, void *scratch);
void mf_dwconv2d_s8_pool_lut(const mf_dwconv2d_s8_pool_params *p, const int8_t *input, int8_t *output, void *scratch);
void mf_dwconv2d_s8_pool_add(const mf_dwconv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                             void *scratch);
void mf_dwconv2d_s8_pool_sub(const mf_dwconv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                             void *scratch);
void mf_dwconv2d_s8_pool_rsub(const mf_dwconv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                              void *scratch);
void mf_dwconv2d_s8_pool_mul(const mf_dwconv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                             void *scratch);

void mf_conv2d_f32_pool(const mf_conv2d_f32_pool_params *p, const float *input, float *output, void *scratch);
void mf_conv2d_f32_pool_ep(const mf_conv2d_f32_pool_params *p, const float *input, float *output, void *scratch);
void mf_conv2d_f32_pool_ep_res(const mf_conv2d_f32_pool_params *p, const float *input, const float *res, float *output,
                               void *scratch);
void mf_dwconv2d_f32_pool(const mf_dwconv2d_f32_pool_params *p, const float *input, float *output, void *scratch);
void mf_dwconv2d_f32_pool_ep(const mf_dwconv2d_f32_pool_params *p, const float *input, float *output, void *scratch);
void mf_dwconv2d_f32_pool_ep_res(const mf_dwconv2d_f32_pool_params *p, const float *input, const float *res, float *output,
                                 void *scratch);

#endif /* MF_POOL_ROWS_H */
