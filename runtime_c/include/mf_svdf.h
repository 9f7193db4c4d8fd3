/* microfuse runtime: SVDF as TFLite Micro computes it. The state holds, per batch row and
 * filter, the last `memory` feature values (oldest first); each invoke shifts the whole state
 * one value left, appends each filter's new feature value (FC of the input), then each unit's
 * output is bias + the sum over its `rank` filters of the time weights . the filter's memory.
 * int8: the feature value is requantized to the state's type (int8 or int16, with the state's
 * zero point, stored without a clamp to int8 as TFLM does), the output requantized to int8 (TFLM
 * applies no activation to it); the input and state offsets are folded into per-filter sums at
 * compile time. */
#ifndef MF_SVDF_H
#define MF_SVDF_H

#include "mf_common.h"

typedef struct {
    int32_t batches, n_input, n_filter, memory, rank;
    const int8_t *w_feature;  /* [n_filter][n_input] */
    const int32_t *feature_offset;  /* -input_zp * row sums of w_feature */
    const void *w_time;  /* [n_filter][memory], int8_t or int16_t as the state */
    const int32_t *time_offset;  /* -state_zp * row sums of w_time */
    const int32_t *bias;  /* [n_filter / rank] */
    int32_t mult1, shift1, state_zp;  /* feature -> state */
    int32_t mult2, shift2, out_zp;  /* time sums -> output */
} mf_svdf_s8_params;

typedef struct {
    int32_t batches, n_input, n_filter, memory, rank;
    const float *w_feature;
    const float *w_time;
    const float *bias;
    float act_min, act_max;
} mf_svdf_f32_params;

void mf_svdf_s8_s16(const mf_svdf_s8_params *p, const int8_t *input, int8_t *output, int16_t *state);
void mf_svdf_s8_s8(const mf_svdf_s8_params *p, const int8_t *input, int8_t *output, int8_t *state);
void mf_svdf_f32(const mf_svdf_f32_params *p, const float *input, float *output, float *state);

#endif /* MF_SVDF_H */
