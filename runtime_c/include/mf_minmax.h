/* microfuse runtime: MAXIMUM and MINIMUM with broadcasting, as TFLM computes them: element-wise
 * `a > b ? a : b` (`a < b ? a : b`) on the stored values, int8 without requantization (TFLM
 * compares the raw int8 values) and float32; a constant operand lives in the params (`_k`). */
#ifndef MF_MINMAX_H
#define MF_MINMAX_H

#include "mf_elementwise.h"

typedef struct {
    mf_broadcast b;
    const int8_t *constant; /* the `_k` kernels: the constant operand */
    int32_t constant_index; /* its input slot (0 or 1) */
} mf_minmax_s8_params;

typedef struct {
    mf_broadcast b;
    const float *constant;
    int32_t constant_index;
} mf_minmax_f32_params;

void mf_maximum_s8(const mf_minmax_s8_params *p, const int8_t *in1, const int8_t *in2, int8_t *out);
void mf_minimum_s8(const mf_minmax_s8_params *p, const int8_t *in1, const int8_t *in2, int8_t *out);
void mf_maximum_s8_k(const mf_minmax_s8_params *p, const int8_t *in, int8_t *out);
void mf_minimum_s8_k(const mf_minmax_s8_params *p, const int8_t *in, int8_t *out);
void mf_maximum_f32(const mf_minmax_f32_params *p, const float *in1, const float *in2, float *out);
void mf_minimum_f32(const mf_minmax_f32_params *p, const float *in1, const float *in2, float *out);
void mf_maximum_f32_k(const mf_minmax_f32_params *p, const float *in, float *out);
void mf_minimum_f32_k(const mf_minmax_f32_params *p, const float *in, float *out);

#endif /* MF_MINMAX_H */
