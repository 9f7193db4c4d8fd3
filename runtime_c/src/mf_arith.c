/* microfuse runtime: element-wise arithmetic of two broadcast inputs (mf_arith.h). */
#include <math.h>
#include <string.h>

#include "mf_arith.h"

typedef float (*mf_f32_op)(const mf_arith_params *p, float x, float y);
typedef int32_t (*mf_i32_op)(const mf_arith_params *p, int32_t x, int32_t y);

/* One broadcast loop per type; `fn` is a constant at each (inlined) call. */
static inline __attribute__((always_inline)) void mf_arith_f32(const mf_arith_params *p, const float *in1,
                                                               const float *in2, float *out, mf_f32_op fn)
{
    mf_bcast_iter it;
    int32_t i;
    memset(&it, 0, sizeof(it));
    for (i = 0; i < p->b.size; ++i) {
        const float x = p->b.flat ? in1[i] : in1[it.o1], y = p->b.flat ? in2[i] : in2[it.o2];
        out[i] = (float)fn(p, x, y);
        if (!p->b.flat) {
            mf_bcast_next(&p->b, &it);
        }
    }
}

static inline __attribute__((always_inline)) void mf_arith_i32(const mf_arith_params *p, const int32_t *in1,
                                                               const int32_t *in2, int32_t *out, mf_i32_op fn)
{
    mf_bcast_iter it;
    int32_t i;
    memset(&it, 0, sizeof(it));
    for (i = 0; i < p->b.size; ++i) {
        const int32_t x = p->b.flat ? in1[i] : in1[it.o1], y = p->b.flat ? in2[i] : in2[it.o2];
        out[i] = (int32_t)fn(p, x, y);
        if (!p->b.flat) {
            mf_bcast_next(&p->b, &it);
        }
    }
}

static inline __attribute__((always_inline)) void mf_arith_s8(const mf_arith_params *p, const int8_t *in1,
                                                               const int8_t *in2, int8_t *out, mf_i32_op fn)
{
    mf_bcast_iter it;
    int32_t i;
    memset(&it, 0, sizeof(it));
    for (i = 0; i < p->b.size; ++i) {
        const int8_t x = p->b.flat ? in1[i] : in1[it.o1], y = p->b.flat ? in2[i] : in2[it.o2];
        out[i] = (int8_t)fn(p, x, y);
        if (!p->b.flat) {
            mf_bcast_next(&p->b, &it);
        }
    }
}

/* std::min(std::max(v, lo), hi) as TFLM's ActivationFunctionWithMinMax: a NaN passes through. */
static float mf_div_f(const mf_arith_params *p, float x, float y)
{
    const float v = x / y, lo = v < p->act_min ? p->act_min : v;
    return p->act_max < lo ? p->act_max : lo;
}

static int32_t mf_div_i(const mf_arith_params *p, int32_t x, int32_t y)
{
    return MF_CLAMP(x / y, p->q_min, p->q_max);
}

/* CountLeadingSignBits of an int32. */
static inline int mf_cls(int32_t x)
{
    const uint32_t u = x >= 0 ? (uint32_t)x : ~(uint32_t)x;
    return u == 0 ? 31 : __builtin_clz(u) - 1;
}

/* TFLM's int8 DivElementwise: the divisor made positive, its reciprocal times the dividend
 * shifted to its headroom, then one rescale. A divisor at its zero point is undefined in TFLM. */
static int32_t mf_div_q(const mf_arith_params *p, int32_t x, int32_t y)
{
    int32_t a = x + p->input1_offset, b = y + p->input2_offset, q, r;
    int headroom, total;
    if (b < 0) {
        a = -a;
        b = -b;
    }
    headroom = mf_cls(a);
    q = mf_sat_round_doubling_high_mul((int32_t)((uint32_t)a << headroom), p->recip[b]);
    total = p->output_shift - p->recip_shift[b] - headroom;
    r = mf_rounding_divide_by_pot(mf_sat_round_doubling_high_mul(q, p->output_multiplier), -total) + p->output_offset;
    return MF_CLAMP(r, p->q_min, p->q_max);
}

static float mf_floor_div_f(const mf_arith_params *p, float x, float y)
{
    (void)p;
    return (float)floor((double)x / (double)y);
}

/* TFLM's FloorMod: the truncated remainder moved to the divisor's sign. */
static float mf_floor_mod_f(const mf_arith_params *p, float x, float y)
{
    const float r = fmodf(x, y);
    (void)p;
    return (r != 0.0f && ((y < 0.0f) != (r < 0.0f))) ? r + y : r;
}

static float mf_sqdiff_f(const mf_arith_params *p, float x, float y)
{
    const float d = x - y;
    (void)p;
    return d * d;
}

/* int32 wraps like TFLM's (two's complement), without signed-overflow UB. */
static int32_t mf_sqdiff_i(const mf_arith_params *p, int32_t x, int32_t y)
{
    const uint32_t d = (uint32_t)x - (uint32_t)y;
    (void)p;
    return (int32_t)(d * d);
}

static int32_t mf_sqdiff_q(const mf_arith_params *p, int32_t x, int32_t y)
{
    const int32_t a = mf_requantize((x + p->input1_offset) * (1 << p->left_shift), p->input1_multiplier,
                                    p->input1_shift);
    const int32_t b = mf_requantize((y + p->input2_offset) * (1 << p->left_shift), p->input2_multiplier,
                                    p->input2_shift);
    const int32_t r = mf_requantize((a - b) * (a - b), p->output_multiplier, p->output_shift) + p->output_offset;
    return MF_CLAMP(r, p->q_min, p->q_max);
}

static float mf_prelu_f(const mf_arith_params *p, float x, float alpha)
{
    (void)p;
    return x >= 0.0f ? x : x * alpha;
}

static int32_t mf_prelu_q(const mf_arith_params *p, int32_t x, int32_t alpha)
{
    const int32_t v = x + p->input1_offset;
    const int32_t r = (v >= 0 ? mf_requantize(v, p->input1_multiplier, p->input1_shift)
                              : mf_requantize(v * (alpha + p->input2_offset), p->input2_multiplier, p->input2_shift))
                      + p->output_offset;
    return MF_CLAMP(r, p->q_min, p->q_max);
}

void mf_div_f32(const mf_arith_params *p, const float *in1, const float *in2, float *out)
{
    mf_arith_f32(p, in1, in2, out, mf_div_f);
}

/* int32 ADD and MUL as TFLM's reference Add / Mul on int32 (two's complement wrap, as the
 * hardware does), then the activation clamp; MAXIMUM / MINIMUM compare the values. */
static int32_t mf_add_i(const mf_arith_params *p, int32_t x, int32_t y)
{
    const int32_t v = (int32_t)((uint32_t)x + (uint32_t)y);
    return v < p->q_min ? p->q_min : v > p->q_max ? p->q_max : v;
}

static int32_t mf_mul_i(const mf_arith_params *p, int32_t x, int32_t y)
{
    const int32_t v = (int32_t)((uint32_t)x * (uint32_t)y);
    return v < p->q_min ? p->q_min : v > p->q_max ? p->q_max : v;
}

static int32_t mf_max_i(const mf_arith_params *p, int32_t x, int32_t y)
{
    (void)p;
    return x > y ? x : y;
}

static int32_t mf_min_i(const mf_arith_params *p, int32_t x, int32_t y)
{
    (void)p;
    return x < y ? x : y;
}

void mf_add_i32(const mf_arith_params *p, const int32_t *in1, const int32_t *in2, int32_t *out)
{
    mf_arith_i32(p, in1, in2, out, mf_add_i);
}

void mf_mul_i32(const mf_arith_params *p, const int32_t *in1, const int32_t *in2, int32_t *out)
{
    mf_arith_i32(p, in1, in2, out, mf_mul_i);
}

void mf_maximum_i32(const mf_arith_params *p, const int32_t *in1, const int32_t *in2, int32_t *out)
{
    mf_arith_i32(p, in1, in2, out, mf_max_i);
}

void mf_minimum_i32(const mf_arith_params *p, const int32_t *in1, const int32_t *in2, int32_t *out)
{
    mf_arith_i32(p, in1, in2, out, mf_min_i);
}

void mf_add_i32_k(const mf_arith_params *p, const int32_t *in, int32_t *out)
{
    MF_K_SIDES(int32_t, p, in, a, b);
    mf_add_i32(p, a, b, out);
}

void mf_mul_i32_k(const mf_arith_params *p, const int32_t *in, int32_t *out)
{
    MF_K_SIDES(int32_t, p, in, a, b);
    mf_mul_i32(p, a, b, out);
}

void mf_maximum_i32_k(const mf_arith_params *p, const int32_t *in, int32_t *out)
{
    MF_K_SIDES(int32_t, p, in, a, b);
    mf_maximum_i32(p, a, b, out);
}

void mf_minimum_i32_k(const mf_arith_params *p, const int32_t *in, int32_t *out)
{
    MF_K_SIDES(int32_t, p, in, a, b);
    mf_minimum_i32(p, a, b, out);
}

void mf_div_s8(const mf_arith_params *p, const int8_t *in1, const int8_t *in2, int8_t *out)
{
    mf_arith_s8(p, in1, in2, out, mf_div_q);
}

void mf_div_i32(const mf_arith_params *p, const int32_t *in1, const int32_t *in2, int32_t *out)
{
    mf_arith_i32(p, in1, in2, out, mf_div_i);
}

void mf_floor_div_f32(const mf_arith_params *p, const float *in1, const float *in2, float *out)
{
    mf_arith_f32(p, in1, in2, out, mf_floor_div_f);
}

void mf_floor_mod_f32(const mf_arith_params *p, const float *in1, const float *in2, float *out)
{
    mf_arith_f32(p, in1, in2, out, mf_floor_mod_f);
}

void mf_squared_difference_f32(const mf_arith_params *p, const float *in1, const float *in2, float *out)
{
    mf_arith_f32(p, in1, in2, out, mf_sqdiff_f);
}

void mf_squared_difference_i32(const mf_arith_params *p, const int32_t *in1, const int32_t *in2, int32_t *out)
{
    mf_arith_i32(p, in1, in2, out, mf_sqdiff_i);
}

void mf_squared_difference_s8(const mf_arith_params *p, const int8_t *in1, const int8_t *in2, int8_t *out)
{
    mf_arith_s8(p, in1, in2, out, mf_sqdiff_q);
}

void mf_prelu_f32(const mf_arith_params *p, const float *in1, const float *in2, float *out)
{
    mf_arith_f32(p, in1, in2, out, mf_prelu_f);
}

void mf_prelu_s8(const mf_arith_params *p, const int8_t *in1, const int8_t *in2, int8_t *out)
{
    mf_arith_s8(p, in1, in2, out, mf_prelu_q);
}

void mf_div_f32_k(const mf_arith_params *p, const float *in, float *out)
{
    MF_K_SIDES(float, p, in, a, b);
    mf_div_f32(p, a, b, out);
}

void mf_div_s8_k(const mf_arith_params *p, const int8_t *in, int8_t *out)
{
    MF_K_SIDES(int8_t, p, in, a, b);
    mf_div_s8(p, a, b, out);
}

void mf_div_i32_k(const mf_arith_params *p, const int32_t *in, int32_t *out)
{
    MF_K_SIDES(int32_t, p, in, a, b);
    mf_div_i32(p, a, b, out);
}

void mf_floor_div_f32_k(const mf_arith_params *p, const float *in, float *out)
{
    MF_K_SIDES(float, p, in, a, b);
    mf_floor_div_f32(p, a, b, out);
}

void mf_floor_mod_f32_k(const mf_arith_params *p, const float *in, float *out)
{
    MF_K_SIDES(float, p, in, a, b);
    mf_floor_mod_f32(p, a, b, out);
}

void mf_squared_difference_f32_k(const mf_arith_params *p, const float *in, float *out)
{
    MF_K_SIDES(float, p, in, a, b);
    mf_squared_difference_f32(p, a, b, out);
}

void mf_squared_difference_i32_k(const mf_arith_params *p, const int32_t *in, int32_t *out)
{
    MF_K_SIDES(int32_t, p, in, a, b);
    mf_squared_difference_i32(p, a, b, out);
}

void mf_squared_difference_s8_k(const mf_arith_params *p, const int8_t *in, int8_t *out)
{
    MF_K_SIDES(int8_t, p, in, a, b);
    mf_squared_difference_s8(p, a, b, out);
}

void mf_prelu_f32_k(const mf_arith_params *p, const float *in, float *out)
{
    MF_K_SIDES(float, p, in, a, b);
    mf_prelu_f32(p, a, b, out);
}

void mf_prelu_s8_k(const mf_arith_params *p, const int8_t *in, int8_t *out)
{
    MF_K_SIDES(int8_t, p, in, a, b);
    mf_prelu_s8(p, a, b, out);
}
