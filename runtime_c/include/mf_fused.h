/* microfuse runtime: fused kernel variants — a conv / depthwise / fully-connected / pool kernel
 * with an epilogue (mf_epilogue.h). Each variant's params are the plain kernel's (`k`) and the
 * epilogue's (`ep`); variants taking a residual read it at the output's index. */
#ifndef MF_FUSED_H
#define MF_FUSED_H

#include "mf_conv.h"
#include "mf_epilogue.h"
#include "mf_fc.h"
#include "mf_pool.h"

typedef struct { mf_conv2d_s8_params k; mf_epilogue_s8 ep; } mf_conv2d_s8_ep_params;
typedef struct { mf_dwconv2d_s8_params k; mf_epilogue_s8 ep; } mf_dwconv2d_s8_ep_params;
typedef struct { mf_fc_s8_params k; mf_epilogue_s8 ep; } mf_fc_s8_ep_params;
typedef struct { mf_fc_s8_pc_params k; mf_epilogue_s8 ep; } mf_fc_s8_pc_ep_params;
typedef struct { mf_pool_s8_params k; mf_epilogue_s8 ep; } mf_pool_s8_ep_params;
typedef struct { mf_conv2d_f32_params k; mf_epilogue_f32 ep; } mf_conv2d_f32_ep_params;
typedef struct { mf_dwconv2d_f32_params k; mf_epilogue_f32 ep; } mf_dwconv2d_f32_ep_params;
typedef struct { mf_fc_f32_params k; mf_epilogue_f32 ep; } mf_fc_f32_ep_params;
typedef struct { mf_pool_f32_params k; mf_epilogue_f32 ep; } mf_pool_f32_ep_params;

/* int8: _lut (one table), _add / _sub (v - residual) / _rsub (residual - v) / _mul. */
void mf_conv2d_s8_lut(const mf_conv2d_s8_ep_params *p, const int8_t *input, int8_t *output);
void mf_conv2d_s8_add(const mf_conv2d_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_conv2d_s8_sub(const mf_conv2d_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_conv2d_s8_rsub(const mf_conv2d_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_conv2d_s8_mul(const mf_conv2d_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_dwconv2d_s8_lut(const mf_dwconv2d_s8_ep_params *p, const int8_t *input, int8_t *output);
void mf_dwconv2d_s8_add(const mf_dwconv2d_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_dwconv2d_s8_sub(const mf_dwconv2d_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_dwconv2d_s8_rsub(const mf_dwconv2d_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_dwconv2d_s8_mul(const mf_dwconv2d_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_lut(const mf_fc_s8_ep_params *p, const int8_t *input, int8_t *output);
void mf_fc_s8_add(const mf_fc_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_sub(const mf_fc_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_rsub(const mf_fc_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_mul(const mf_fc_s8_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_pc_lut(const mf_fc_s8_pc_ep_params *p, const int8_t *input, int8_t *output);
void mf_fc_s8_pc_add(const mf_fc_s8_pc_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_pc_sub(const mf_fc_s8_pc_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_pc_rsub(const mf_fc_s8_pc_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_pc_mul(const mf_fc_s8_pc_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);

/* int8 pools take unary epilogues only. */
void mf_pool_avg_s8_lut(const mf_pool_s8_ep_params *p, const int8_t *input, int8_t *output);
void mf_pool_max_s8_lut(const mf_pool_s8_ep_params *p, const int8_t *input, int8_t *output);

/* float32: _ep (unary steps only) and _ep_res (with a residual operand). */
void mf_conv2d_f32_ep(const mf_conv2d_f32_ep_params *p, const float *input, float *output);
void mf_conv2d_f32_ep_res(const mf_conv2d_f32_ep_params *p, const float *input, const float *res, float *output);
void mf_dwconv2d_f32_ep(const mf_dwconv2d_f32_ep_params *p, const float *input, float *output);
void mf_dwconv2d_f32_ep_res(const mf_dwconv2d_f32_ep_params *p, const float *input, const float *res, float *output);
void mf_fc_f32_ep(const mf_fc_f32_ep_params *p, const float *input, float *output);
void mf_fc_f32_ep_res(const mf_fc_f32_ep_params *p, const float *input, const float *res, float *output);
void mf_pool_avg_f32_ep(const mf_pool_f32_ep_params *p, const float *input, float *output);
void mf_pool_avg_f32_ep_res(const mf_pool_f32_ep_params *p, const float *input, const float *res, float *output);
void mf_pool_max_f32_ep(const mf_pool_f32_ep_params *p, const float *input, float *output);
void mf_pool_max_f32_ep_res(const mf_pool_f32_ep_params *p, const float *input, const float *res, float *output);

#endif /* MF_FUSED_H */
