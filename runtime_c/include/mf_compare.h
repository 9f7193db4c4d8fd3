/* microfuse runtime: comparisons and logical ops with broadcasting, bool outputs, as TFLM's
 * comparisons.cc / logical.cc compute them. One loop per input type; the op is a truth table:
 * bit (lt | eq << 1 | gt << 2) of `table` is the output (index 0: unordered, a NaN operand);
 * for bools bit (a | b << 1). int8 inputs are compared after TFLM's rescaling:
 * ((q + offset) << 8) times the input's scale as a Q31 multiplier and a right shift.
 * Element i of the output is written after element i of the inputs is read, in increasing i. */
#ifndef MF_COMPARE_H
#define MF_COMPARE_H

#include <stdbool.h>

#include "mf_elementwise.h"

typedef struct {
    mf_broadcast b;
    int32_t table;
    int32_t input1_offset, input1_multiplier, input1_shift; /* int8 only */
    int32_t input2_offset, input2_multiplier, input2_shift;
    const void *constant; /* the `_k` kernels: the constant operand ... */
    int32_t constant_index; /* ... is input 1 (0) or input 2 (1) */
} mf_compare_params;

void mf_compare_f32(const mf_compare_params *p, const float *in1, const float *in2, bool *out);
void mf_compare_i32(const mf_compare_params *p, const int32_t *in1, const int32_t *in2, bool *out);
void mf_compare_i64(const mf_compare_params *p, const int64_t *in1, const int64_t *in2, bool *out);
void mf_compare_s8(const mf_compare_params *p, const int8_t *in1, const int8_t *in2, bool *out);
void mf_logic_b(const mf_compare_params *p, const bool *in1, const bool *in2, bool *out);
void mf_compare_f32_k(const mf_compare_params *p, const float *in, bool *out);
void mf_compare_i32_k(const mf_compare_params *p, const int32_t *in, bool *out);
void mf_compare_i64_k(const mf_compare_params *p, const int64_t *in, bool *out);
void mf_compare_s8_k(const mf_compare_params *p, const int8_t *in, bool *out);
void mf_logic_b_k(const mf_compare_params *p, const bool *in, bool *out);

#endif /* MF_COMPARE_H */
