/* microfuse runtime: element-wise math of one input (ABS ... ZEROS_LIKE) as TFLM's reference
 * kernels compute it, float32 and bool; int8 ABS/RSQRT/ELU are 256-entry tables (mf_lut_s8).
 * Element i of the output is written after element i of the input is read, in increasing i. */
#ifndef MF_MATH_H
#define MF_MATH_H

#include <stdbool.h>

#include "mf_common.h"

typedef struct {
    int32_t size; /* elements (mf_zeros: bytes) */
} mf_math_params;

void mf_abs_f32(const mf_math_params *p, const float *in, float *out);
void mf_neg_f32(const mf_math_params *p, const float *in, float *out);
void mf_ceil_f32(const mf_math_params *p, const float *in, float *out);
void mf_floor_f32(const mf_math_params *p, const float *in, float *out);
void mf_round_f32(const mf_math_params *p, const float *in, float *out);
void mf_sqrt_f32(const mf_math_params *p, const float *in, float *out);
void mf_rsqrt_f32(const mf_math_params *p, const float *in, float *out);
void mf_square_f32(const mf_math_params *p, const float *in, float *out);
void mf_exp_f32(const mf_math_params *p, const float *in, float *out);
void mf_log_f32(const mf_math_params *p, const float *in, float *out);
void mf_sin_f32(const mf_math_params *p, const float *in, float *out);
void mf_cos_f32(const mf_math_params *p, const float *in, float *out);
void mf_elu_f32(const mf_math_params *p, const float *in, float *out);
void mf_logical_not_b(const mf_math_params *p, const bool *in, bool *out);
/* ZEROS_LIKE of any type: the output's bytes set to 0 (the input is not read). */
void mf_zeros(const mf_math_params *p, const void *in, void *out);

#endif /* MF_MATH_H */
