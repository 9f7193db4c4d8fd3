/* microfuse runtime: FULLY_CONNECTED (the input is read as `rows` rows of `depth` values).
 *
 * Bit-exact with TFLite Micro's reference kernels, which requantize with the
 * double-rounding MultiplyByQuantizedMultiplier for per-tensor and per-channel
 * weights alike. microfuse/lower/fc.py prepares, at compile time, the
 * multiplier(s) (per-tensor: from the float32 product of the input and filter
 * scales, as TFLite's GetQuantizedConvolutionMultipler does) and the int8 bias
 * with the input offset folded in:
 *     bias[u] = bias_tflite[u] - in_zero_point * sum(weights[u])
 * exact in int32 arithmetic, since a dense layer has no padding.
 * Rows are produced in order (the memory planner relies on it). */
#ifndef MF_FC_H
#define MF_FC_H

#include "mf_common.h"

typedef struct {
    int32_t rows, depth, units;
    int32_t out_zero_point;
    int32_t act_min, act_max;
    int32_t mult, shift;     /* one Q31 multiplier and TFLite shift */
    const int8_t *weights;   /* [units][depth] */
    const int32_t *bias;     /* [units], input offset folded in (never NULL) */
    int32_t out_stride;      /* elements between output rows: 0 = units (dense) */
} mf_fc_s8_params;

typedef struct {
    int32_t rows, depth, units;
    int32_t out_zero_point;
    int32_t act_min, act_max;
    const int8_t *weights;   /* [units][depth] */
    const int32_t *bias;     /* [units], input offset folded in (never NULL) */
    const int32_t *mult;     /* [units] */
    const int32_t *shift;    /* [units] */
    int32_t out_stride;      /* elements between output rows: 0 = units (dense) */
} mf_fc_s8_pc_params;

typedef struct {
    int32_t rows, depth, units;
    float act_min, act_max;
    const float *weights;    /* [units][depth] */
    const float *bias;       /* [units] or NULL */
    int32_t out_stride;      /* elements between output rows: 0 = units (dense) */
} mf_fc_f32_params;

void mf_fc_s8(const mf_fc_s8_params *p, const int8_t *input, int8_t *output);
void mf_fc_s8_pc(const mf_fc_s8_pc_params *p, const int8_t *input, int8_t *output);
void mf_fc_f32(const mf_fc_f32_params *p, const float *input, float *output);

#endif /* MF_FC_H */
