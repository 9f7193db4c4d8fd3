/* microfuse runtime: SELECT_V2 as TFLM computes it: out = cond ? x : y, the raw values copied,
 * the three inputs broadcast to the output (strides 0 on broadcast axes). A constant x or y lives
 * in the params (`_k`), or both (`_kk`). Element i of the output is written after element i of every input is
 * read, in increasing i. */
#ifndef MF_SELECT_H
#define MF_SELECT_H

#include <stdbool.h>

#include "mf_elementwise.h"

typedef struct {
    int32_t size;
    int32_t shape[MF_MAX_DIMS];
    int32_t stride_c[MF_MAX_DIMS], stride_x[MF_MAX_DIMS], stride_y[MF_MAX_DIMS];
    const void *constant; /* the `_k` kernels: x (constant_index 1) or y (2); `_kk`: x ... */
    int32_t constant_index;
    const void *constant2; /* ... and y */
} mf_select_params;

void mf_select_v2_f32(const mf_select_params *p, const bool *c, const float *x, const float *y, float *out);
void mf_select_v2_s8(const mf_select_params *p, const bool *c, const int8_t *x, const int8_t *y, int8_t *out);
void mf_select_v2_f32_k(const mf_select_params *p, const bool *c, const float *in, float *out);
void mf_select_v2_s8_k(const mf_select_params *p, const bool *c, const int8_t *in, int8_t *out);

void mf_select_v2_f32_kk(const mf_select_params *p, const bool *c, float *out);
void mf_select_v2_s8_kk(const mf_select_params *p, const bool *c, int8_t *out);

#endif /* MF_SELECT_H */
