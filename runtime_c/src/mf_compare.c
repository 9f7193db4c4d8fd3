/* microfuse runtime: comparisons and logical ops (mf_compare.h). */
#include <string.h>

#include "mf_compare.h"

/* The truth-table index of x against y (0 when unordered). */
#define MF_ORDER(x, y) (((x) < (y)) | (((x) == (y)) << 1) | (((x) > (y)) << 2))

/* TFLM's int8 comparison operand: (q + offset) << 8, times the scale (shift <= 0). */
static inline int32_t mf_cmp_scaled(int32_t q, int32_t offset, int32_t multiplier, int32_t shift)
{
    return mf_requantize((q + offset) * 256, multiplier, shift);
}

void mf_compare_f32(const mf_compare_params *p, const float *in1, const float *in2, bool *out)
{
    mf_bcast_iter it;
    int32_t i;
    memset(&it, 0, sizeof(it));
    for (i = 0; i < p->b.size; ++i) {
        const float x = p->b.flat ? in1[i] : in1[it.o1], y = p->b.flat ? in2[i] : in2[it.o2];
        out[i] = (p->table >> MF_ORDER(x, y)) & 1;
        if (!p->b.flat) {
            mf_bcast_next(&p->b, &it);
        }
    }
}

void mf_compare_i32(const mf_compare_params *p, const int32_t *in1, const int32_t *in2, bool *out)
{
    mf_bcast_iter it;
    int32_t i;
    memset(&it, 0, sizeof(it));
    for (i = 0; i < p->b.size; ++i) {
        const int32_t x = p->b.flat ? in1[i] : in1[it.o1], y = p->b.flat ? in2[i] : in2[it.o2];
        out[i] = (p->table >> MF_ORDER(x, y)) & 1;
        if (!p->b.flat) {
            mf_bcast_next(&p->b, &it);
        }
    }
}

void mf_compare_i64(const mf_compare_params *p, const int64_t *in1, const int64_t *in2, bool *out)
{
    mf_bcast_iter it;
    int32_t i;
    memset(&it, 0, sizeof(it));
    for (i = 0; i < p->b.size; ++i) {
        const int64_t x = p->b.flat ? in1[i] : in1[it.o1], y = p->b.flat ? in2[i] : in2[it.o2];
        out[i] = (p->table >> MF_ORDER(x, y)) & 1;
        if (!p->b.flat) {
            mf_bcast_next(&p->b, &it);
        }
    }
}

void mf_compare_s8(const mf_compare_params *p, const int8_t *in1, const int8_t *in2, bool *out)
{
    mf_bcast_iter it;
    int32_t i;
    memset(&it, 0, sizeof(it));
    for (i = 0; i < p->b.size; ++i) {
        const int32_t x = mf_cmp_scaled(p->b.flat ? in1[i] : in1[it.o1], p->input1_offset, p->input1_multiplier,
                                        p->input1_shift);
        const int32_t y = mf_cmp_scaled(p->b.flat ? in2[i] : in2[it.o2], p->input2_offset, p->input2_multiplier,
                                        p->input2_shift);
        out[i] = (p->table >> MF_ORDER(x, y)) & 1;
        if (!p->b.flat) {
            mf_bcast_next(&p->b, &it);
        }
    }
}

void mf_logic_b(const mf_compare_params *p, const bool *in1, const bool *in2, bool *out)
{
    mf_bcast_iter it;
    int32_t i;
    memset(&it, 0, sizeof(it));
    for (i = 0; i < p->b.size; ++i) {
        const int x = p->b.flat ? in1[i] : in1[it.o1], y = p->b.flat ? in2[i] : in2[it.o2];
        out[i] = (p->table >> ((x != 0) | ((y != 0) << 1))) & 1;
        if (!p->b.flat) {
            mf_bcast_next(&p->b, &it);
        }
    }
}

void mf_compare_f32_k(const mf_compare_params *p, const float *in, bool *out)
{
    MF_K_SIDES(float, p, in, a, b);
    mf_compare_f32(p, a, b, out);
}

void mf_compare_i32_k(const mf_compare_params *p, const int32_t *in, bool *out)
{
    MF_K_SIDES(int32_t, p, in, a, b);
    mf_compare_i32(p, a, b, out);
}

void mf_compare_i64_k(const mf_compare_params *p, const int64_t *in, bool *out)
{
    MF_K_SIDES(int64_t, p, in, a, b);
    mf_compare_i64(p, a, b, out);
}

void mf_compare_s8_k(const mf_compare_params *p, const int8_t *in, bool *out)
{
    MF_K_SIDES(int8_t, p, in, a, b);
    mf_compare_s8(p, a, b, out);
}

void mf_logic_b_k(const mf_compare_params *p, const bool *in, bool *out)
{
    MF_K_SIDES(bool, p, in, a, b);
    mf_logic_b(p, a, b, out);
}
