/* microfuse runtime: element-wise arithmetic of two broadcast inputs as TFLM computes it: DIV
 * (float32, int32: C division, then the activation clamp; int8: TFLM's reciprocal of the
 * divisor from a table, scaled by the dividend's headroom), FLOOR_DIV and FLOOR_MOD (float32, in
 * double / fmod as TFLM), SQUARED_DIFFERENCE (float32, int32, int8 rescaled with left shift 7) and
 * PRELU (float32, int8: two multipliers, by sign), and int32 ADD, MUL, MAXIMUM, MINIMUM. A
 * constant operand lives in the params (`_k`).
 * Element i of the output is written after element i of the inputs is read, in increasing i. */
#ifndef MF_ARITH_H
#define MF_ARITH_H

#include "mf_compare.h"

typedef struct {
    mf_broadcast b;
    float act_min, act_max;      /* float DIV */
    int32_t q_min, q_max;        /* integer clamp: int32 DIV's activation, int8 range */
    int32_t input1_offset, input2_offset, output_offset, left_shift;
    int32_t input1_multiplier, input1_shift; /* PRELU: the multiplier of x >= 0 ... */
    int32_t input2_multiplier, input2_shift; /* ... and of x < 0 (x * alpha) */
    int32_t output_multiplier, output_shift;
    const int32_t *recip;      /* int8 DIV: per |divisor| 1..255, TFLM's GetReciprocal(v, 31) ... */
    const int8_t *recip_shift; /* ... and its num_bits_over_unit */
    const void *constant;
    int32_t constant_index;
} mf_arith_params;

void mf_div_f32(const mf_arith_params *p, const float *in1, const float *in2, float *out);
void mf_div_s8(const mf_arith_params *p, const int8_t *in1, const int8_t *in2, int8_t *out);
void mf_div_i32(const mf_arith_params *p, const int32_t *in1, const int32_t *in2, int32_t *out);
void mf_floor_div_f32(const mf_arith_params *p, const float *in1, const float *in2, float *out);
void mf_floor_mod_f32(const mf_arith_params *p, const float *in1, const float *in2, float *out);
void mf_squared_difference_f32(const mf_arith_params *p, const float *in1, const float *in2, float *out);
void mf_squared_difference_i32(const mf_arith_params *p, const int32_t *in1, const int32_t *in2, int32_t *out);
void mf_squared_difference_s8(const mf_arith_params *p, const int8_t *in1, const int8_t *in2, int8_t *out);
void mf_prelu_f32(const mf_arith_params *p, const float *in1, const float *in2, float *out);
void mf_prelu_s8(const mf_arith_params *p, const int8_t *in1, const int8_t *in2, int8_t *out);
void mf_add_i32(const mf_arith_params *p, const int32_t *in1, const int32_t *in2, int32_t *out);
void mf_mul_i32(const mf_arith_params *p, const int32_t *in1, const int32_t *in2, int32_t *out);
void mf_maximum_i32(const mf_arith_params *p, const int32_t *in1, const int32_t *in2, int32_t *out);
void mf_minimum_i32(const mf_arith_params *p, const int32_t *in1, const int32_t *in2, int32_t *out);
void mf_add_i32_k(const mf_arith_params *p, const int32_t *in, int32_t *out);
void mf_mul_i32_k(const mf_arith_params *p, const int32_t *in, int32_t *out);
void mf_maximum_i32_k(const mf_arith_params *p, const int32_t *in, int32_t *out);
void mf_minimum_i32_k(const mf_arith_params *p, const int32_t *in, int32_t *out);
void mf_div_f32_k(const mf_arith_params *p, const float *in, float *out);
void mf_div_s8_k(const mf_arith_params *p, const int8_t *in, int8_t *out);
void mf_div_i32_k(const mf_arith_params *p, const int32_t *in, int32_t *out);
void mf_floor_div_f32_k(const mf_arith_params *p, const float *in, float *out);
void mf_floor_mod_f32_k(const mf_arith_params *p, const float *in, float *out);
void mf_squared_difference_f32_k(const mf_arith_params *p, const float *in, float *out);
void mf_squared_difference_i32_k(const mf_arith_params *p, const int32_t *in, int32_t *out);
void mf_squared_difference_s8_k(const mf_arith_params *p, const int8_t *in, int8_t *out);
void mf_prelu_f32_k(const mf_arith_params *p, const float *in, float *out);
void mf_prelu_s8_k(const mf_arith_params *p, const int8_t *in, int8_t *out);

#endif /* MF_ARITH_H */
