/* microfuse runtime: element-wise kernels (binary with broadcasting, LUT, float unary,
 * quantize / dequantize). Every element i of the output is written after element i of the
 * inputs is read, in increasing i (the planner may overlap them). */
#ifndef MF_ELEMENTWISE_H
#define MF_ELEMENTWISE_H

#include "mf_common.h"

#define MF_MAX_DIMS 6

/* Output shape extended to MF_MAX_DIMS (leading 1s); per-input element strides with 0 on
 * broadcast axes. `flat` != 0: both inputs have the output's shape (no broadcast). */
typedef struct {
    int32_t size;
    int32_t flat;
    int32_t shape[MF_MAX_DIMS];
    int32_t stride1[MF_MAX_DIMS];
    int32_t stride2[MF_MAX_DIMS];
} mf_broadcast;

/* Walks the output in raster order, tracking each input's element offset. */
typedef struct {
    int32_t idx[MF_MAX_DIMS];
    int32_t o1, o2;
} mf_bcast_iter;

static inline void mf_bcast_next(const mf_broadcast *b, mf_bcast_iter *it)
{
    int d;
    for (d = MF_MAX_DIMS - 1; d >= 0; --d) {
        it->o1 += b->stride1[d];
        it->o2 += b->stride2[d];
        if (++it->idx[d] < b->shape[d]) {
            return;
        }
        it->o1 -= b->stride1[d] * b->shape[d];
        it->o2 -= b->stride2[d] * b->shape[d];
        it->idx[d] = 0;
    }
}

/* The operand pointers of a `_k` kernel: the constant in its slot, the arena input in the other. */
#define MF_K_SIDES(T, p, in, a, b)                                              \
    const T *a = (p)->constant_index == 0 ? (const T *)(p)->constant : (in);   \
    const T *b = (p)->constant_index == 0 ? (in) : (const T *)(p)->constant

/* int8 and int16 ADD/SUB: TFLite's "left shift" scheme (20 bits for int8, 15 for int16) with one
 * multiplier per input. */
typedef struct {
    mf_broadcast b;
    int32_t input1_offset, input2_offset, output_offset;
    int32_t left_shift;
    int32_t input1_multiplier, input1_shift;
    int32_t input2_multiplier, input2_shift;
    int32_t output_multiplier, output_shift;
    int32_t act_min, act_max;
    const void *constant;   /* *_k kernels: the constant operand (of the kernel's type) ... */
    int32_t constant_index; /* ... is input 1 (0) or input 2 (1) */
} mf_addsub_params;

/* int8 MUL: (a - za) * (b - zb) requantized once. */
typedef struct {
    mf_broadcast b;
    int32_t input1_offset, input2_offset, output_offset;
    int32_t output_multiplier, output_shift;
    int32_t act_min, act_max;
    const int8_t *constant;
    int32_t constant_index;
} mf_mul_s8_params;

typedef struct {
    mf_broadcast b;
    float act_min, act_max;
    const float *constant;
    int32_t constant_index;
} mf_binary_f32_params;

void mf_add_s8(const mf_addsub_params *p, const int8_t *in1, const int8_t *in2, int8_t *out);
void mf_sub_s8(const mf_addsub_params *p, const int8_t *in1, const int8_t *in2, int8_t *out);
void mf_mul_s8(const mf_mul_s8_params *p, const int8_t *in1, const int8_t *in2, int8_t *out);
void mf_add_f32(const mf_binary_f32_params *p, const float *in1, const float *in2, float *out);
void mf_sub_f32(const mf_binary_f32_params *p, const float *in1, const float *in2, float *out);
void mf_mul_f32(const mf_binary_f32_params *p, const float *in1, const float *in2, float *out);
/* The same with one operand constant (flash data in the params): one arena input. */
void mf_add_s8_k(const mf_addsub_params *p, const int8_t *in, int8_t *out);
void mf_sub_s8_k(const mf_addsub_params *p, const int8_t *in, int8_t *out);
void mf_mul_s8_k(const mf_mul_s8_params *p, const int8_t *in, int8_t *out);
void mf_add_f32_k(const mf_binary_f32_params *p, const float *in, float *out);
void mf_sub_f32_k(const mf_binary_f32_params *p, const float *in, float *out);
void mf_mul_f32_k(const mf_binary_f32_params *p, const float *in, float *out);

/* Any int8 -> int8 unary op (or chain of them): out[i] = lut[(uint8_t)in[i]]. */
typedef struct {
    int32_t size;
    const int8_t *lut;
} mf_lut_params;

void mf_lut_s8(const mf_lut_params *p, const int8_t *in, int8_t *out);
/* Byte tables between uint8 and int8 tensors (QUANTIZE uint8 <-> int8). */
void mf_lut_u8_s8(const mf_lut_params *p, const uint8_t *in, int8_t *out);
void mf_lut_s8_u8(const mf_lut_params *p, const int8_t *in, uint8_t *out);

typedef struct {
    int32_t size;
    float alpha; /* LEAKY_RELU only */
} mf_unary_f32_params;

void mf_relu_f32(const mf_unary_f32_params *p, const float *in, float *out);
void mf_relu6_f32(const mf_unary_f32_params *p, const float *in, float *out);
void mf_leaky_relu_f32(const mf_unary_f32_params *p, const float *in, float *out);
void mf_hard_swish_f32(const mf_unary_f32_params *p, const float *in, float *out);
void mf_logistic_f32(const mf_unary_f32_params *p, const float *in, float *out);
void mf_tanh_f32(const mf_unary_f32_params *p, const float *in, float *out);

typedef struct {
    int32_t size;
    float scale;
    int32_t zero_point;
} mf_affine_params;

/* float32 -> int8: round(x / scale) + zero_point, saturated. */
void mf_quantize_f32_s8(const mf_affine_params *p, const float *in, int8_t *out);
void mf_quantize_f32_s16(const mf_affine_params *p, const float *in, int16_t *out);
/* int8 / uint8 / int16 -> float32: scale * (q - zero_point). */
void mf_dequantize_s8_f32(const mf_affine_params *p, const int8_t *in, float *out);
void mf_dequantize_u8_f32(const mf_affine_params *p, const uint8_t *in, float *out);
void mf_dequantize_s16_f32(const mf_affine_params *p, const int16_t *in, float *out);

#endif /* MF_ELEMENTWISE_H */
