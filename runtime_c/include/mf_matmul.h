/* microfuse runtime: BATCH_MATMUL as TFLite Micro computes it: out[b, i, j] = sum over k, in
 * increasing k, of lhs[b, i, k] * rhs[b, k, j]; int8 with zero points in an int32 accumulator,
 * requantized like FULLY_CONNECTED. adj_x / adj_y and broadcast batch dimensions are strides. */
#ifndef MF_MATMUL_H
#define MF_MATMUL_H

#include "mf_common.h"

typedef struct {
    int32_t batch[3];                   /* output batch dims, extended to 3 with leading 1s */
    int32_t lhs_batch[3], rhs_batch[3]; /* element strides per batch dim (0: broadcast) */
    int32_t rows, depth, cols;
    int32_t lhs_row, lhs_k;             /* lhs element strides along i and k */
    int32_t rhs_k, rhs_col;             /* rhs element strides along k and j */
    int32_t lhs_offset, rhs_offset;     /* int8: minus the zero points */
    int32_t out_zero_point, multiplier, shift;
    const void *constant;               /* the `_k` kernels: the constant operand */
    int32_t constant_index;             /* its input slot (0: lhs, 1: rhs) */
} mf_matmul_params;

void mf_batch_matmul_s8(const mf_matmul_params *p, const int8_t *lhs, const int8_t *rhs, int8_t *out);
void mf_batch_matmul_s8_k(const mf_matmul_params *p, const int8_t *in, int8_t *out);
/* int16 (zero points 0): an int64 sum, TFLM's 64-bit MultiplyByQuantizedMultiplier with the
 * multiplier reduced to 16 bits at compile time (`multiplier`), clamped to int16. */
void mf_batch_matmul_s16(const mf_matmul_params *p, const int16_t *lhs, const int16_t *rhs, int16_t *out);
void mf_batch_matmul_s16_k(const mf_matmul_params *p, const int16_t *in, int16_t *out);
void mf_batch_matmul_f32(const mf_matmul_params *p, const float *lhs, const float *rhs, float *out);
void mf_batch_matmul_f32_k(const mf_matmul_params *p, const float *in, float *out);

#endif /* MF_MATMUL_H */
