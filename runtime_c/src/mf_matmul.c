/* microfuse runtime: BATCH_MATMUL, bit-exact with TFLite Micro's reference BatchMatMul (int8: the
 * int32 sum of (lhs - zp) * (rhs - zp), MultiplyByQuantizedMultiplier, output zero point, clamp). */
#include "mf_matmul.h"

void mf_batch_matmul_s8(const mf_matmul_params *p, const int8_t *lhs, const int8_t *rhs, int8_t *out)
{
    int32_t b0, b1, b2, i, j, k;
    for (b0 = 0; b0 < p->batch[0]; ++b0) {
        for (b1 = 0; b1 < p->batch[1]; ++b1) {
            for (b2 = 0; b2 < p->batch[2]; ++b2) {
                const int8_t *l = lhs + b0 * p->lhs_batch[0] + b1 * p->lhs_batch[1] + b2 * p->lhs_batch[2];
                const int8_t *r = rhs + b0 * p->rhs_batch[0] + b1 * p->rhs_batch[1] + b2 * p->rhs_batch[2];
                for (i = 0; i < p->rows; ++i) {
                    for (j = 0; j < p->cols; ++j) {
                        int32_t acc = 0, v;
                        for (k = 0; k < p->depth; ++k) {
                            acc += (l[i * p->lhs_row + k * p->lhs_k] + p->lhs_offset) *
                                   (r[k * p->rhs_k + j * p->rhs_col] + p->rhs_offset);
                        }
                        v = mf_requantize(acc, p->multiplier, p->shift) + p->out_zero_point;
                        *out++ = (int8_t)MF_CLAMP(v, -128, 127);
                    }
                }
            }
        }
    }
}

void mf_batch_matmul_s16(const mf_matmul_params *p, const int16_t *lhs, const int16_t *rhs, int16_t *out)
{
    const int32_t total_shift = 15 - p->shift;
    int32_t b0, b1, b2, i, j, k;
    for (b0 = 0; b0 < p->batch[0]; ++b0) {
        for (b1 = 0; b1 < p->batch[1]; ++b1) {
            for (b2 = 0; b2 < p->batch[2]; ++b2) {
                const int16_t *l = lhs + b0 * p->lhs_batch[0] + b1 * p->lhs_batch[1] + b2 * p->lhs_batch[2];
                const int16_t *r = rhs + b0 * p->rhs_batch[0] + b1 * p->rhs_batch[1] + b2 * p->rhs_batch[2];
                for (i = 0; i < p->rows; ++i) {
                    for (j = 0; j < p->cols; ++j) {
                        int64_t acc = 0;
                        int32_t v;
                        for (k = 0; k < p->depth; ++k) {
                            acc += (int64_t)l[i * p->lhs_row + k * p->lhs_k] * r[k * p->rhs_k + j * p->rhs_col];
                        }
                        v = (int32_t)((acc * p->multiplier + ((int64_t)1 << (total_shift - 1))) >> total_shift);
                        *out++ = (int16_t)MF_CLAMP(v, INT16_MIN, INT16_MAX);
                    }
                }
            }
        }
    }
}

void mf_batch_matmul_f32(const mf_matmul_params *p, const float *lhs, const float *rhs, float *out)
{
    int32_t b0, b1, b2, i, j, k;
    for (b0 = 0; b0 < p->batch[0]; ++b0) {
        for (b1 = 0; b1 < p->batch[1]; ++b1) {
            for (b2 = 0; b2 < p->batch[2]; ++b2) {
                const float *l = lhs + b0 * p->lhs_batch[0] + b1 * p->lhs_batch[1] + b2 * p->lhs_batch[2];
                const float *r = rhs + b0 * p->rhs_batch[0] + b1 * p->rhs_batch[1] + b2 * p->rhs_batch[2];
                for (i = 0; i < p->rows; ++i) {
                    for (j = 0; j < p->cols; ++j) {
                        float acc = 0.0f;
                        for (k = 0; k < p->depth; ++k) {
                            acc += l[i * p->lhs_row + k * p->lhs_k] * r[k * p->rhs_k + j * p->rhs_col];
                        }
                        *out++ = acc;
                    }
                }
            }
        }
    }
}

void mf_batch_matmul_s8_k(const mf_matmul_params *p, const int8_t *in, int8_t *out)
{
    const int8_t *k = (const int8_t *)p->constant;
    mf_batch_matmul_s8(p, p->constant_index == 0 ? k : in, p->constant_index == 0 ? in : k, out);
}

void mf_batch_matmul_s16_k(const mf_matmul_params *p, const int16_t *in, int16_t *out)
{
    const int16_t *k = (const int16_t *)p->constant;
    mf_batch_matmul_s16(p, p->constant_index == 0 ? k : in, p->constant_index == 0 ? in : k, out);
}

void mf_batch_matmul_f32_k(const mf_matmul_params *p, const float *in, float *out)
{
    const float *k = (const float *)p->constant;
    mf_batch_matmul_f32(p, p->constant_index == 0 ? k : in, p->constant_index == 0 ? in : k, out);
}
