/* microfuse runtime: reductions beside MEAN, as TFLite Micro computes them: REDUCE_MAX / REDUCE_MIN
 * (int8 on the stored values, float32), REDUCE_ALL (bool), SUM (float32; int8 SUM is mf_mean_s8 with
 * the unscaled multiplier), ARG_MAX / ARG_MIN (int32 output), L2_NORMALIZATION, LOG_SOFTMAX and
 * L2_POOL_2D. The reductions walk MEAN's geometry (mf_mean_params, mf_data.h). */
#ifndef MF_REDUCE_H
#define MF_REDUCE_H

#include <stdbool.h>

#include "mf_data.h"
#include "mf_pool.h"

void mf_reduce_max_s8(const mf_mean_params *p, const int8_t *in, int8_t *out);
void mf_reduce_min_s8(const mf_mean_params *p, const int8_t *in, int8_t *out);
void mf_reduce_max_f32(const mf_mean_params *p, const float *in, float *out);
void mf_reduce_min_f32(const mf_mean_params *p, const float *in, float *out);
void mf_reduce_all_b(const mf_mean_params *p, const bool *in, bool *out);
void mf_sum_f32(const mf_mean_params *p, const float *in, float *out);

/* ARG_MAX / ARG_MIN over the middle axis of [outer, axis, inner]; the first extreme wins ties. */
typedef struct {
    int32_t outer;
    int32_t axis;
    int32_t inner;
} mf_arg_params;

void mf_arg_max_s8(const mf_arg_params *p, const int8_t *in, int32_t *out);
void mf_arg_min_s8(const mf_arg_params *p, const int8_t *in, int32_t *out);
void mf_arg_max_f32(const mf_arg_params *p, const float *in, int32_t *out);
void mf_arg_min_f32(const mf_arg_params *p, const float *in, int32_t *out);

/* L2_NORMALIZATION and LOG_SOFTMAX over the last axis: `outer` rows of `depth` values. */
typedef struct {
    int32_t outer;
    int32_t depth;
    int32_t input_zero_point; /* int8 L2_NORMALIZATION (the output is 1/128 with zero point 0) */
} mf_rows_params;

void mf_l2_normalization_s8(const mf_rows_params *p, const int8_t *in, int8_t *out);
void mf_l2_normalization_f32(const mf_rows_params *p, const float *in, float *out);
void mf_log_softmax_f32(const mf_rows_params *p, const float *in, float *out);

/* int8 LOG_SOFTMAX (TFLM LogSoftmaxQuantized; output scale 16/256, zero point 127). Per row-max
 * difference d = max - x (0..255), compiled from the input scale: q5[d], the rescaled difference
 * (Q5.26), and exp12[d], its exp in Q12.19 (0 where TFLM skips it, below diff_min). */
typedef struct {
    int32_t outer;
    int32_t depth;
    int32_t diff_min;
    int32_t rev_multiplier, rev_shift; /* reverse_scaling_divisor and its (left) shift */
    const int32_t *q5;
    const int32_t *exp12;
} mf_log_softmax_s8_params;

void mf_log_softmax_s8(const mf_log_softmax_s8_params *p, const int8_t *in, int8_t *out);

/* L2_POOL_2D (float32): sqrt(sum of squares / taps inside the image), then the activation clamp. */
void mf_l2_pool_f32(const mf_pool_f32_params *p, const float *input, float *output);

#endif /* MF_REDUCE_H */
