/* microfuse runtime: element-wise math of one input (mf_math.h). */
#include <math.h>
#include <string.h>

#include "mf_math.h"

typedef float (*mf_f32_fn)(float);

/* One loop for every float function: `fn` is a constant at each (inlined) call. */
static inline __attribute__((always_inline)) void mf_map_f32(const mf_math_params *p, const float *in,
                                                             float *out, mf_f32_fn fn)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = fn(in[i]);
    }
}

static float mf_neg(float x) { return -x; }
static float mf_square(float x) { return x * x; }
static float mf_rsqrt(float x) { return 1.0f / sqrtf(x); }
static float mf_elu(float x) { return x < 0.0f ? expm1f(x) : x; }

/* TFLM's RoundToNearest: halves to even, whatever the FPU's rounding mode. */
static float mf_round_even(float x)
{
    const float f = floorf(x), diff = x - f;
    if (diff < 0.5f || (diff == 0.5f && fmodf(f, 2.0f) == 0.0f)) {
        return f;
    }
    return f + 1.0f;
}

void mf_abs_f32(const mf_math_params *p, const float *in, float *out) { mf_map_f32(p, in, out, fabsf); }
void mf_neg_f32(const mf_math_params *p, const float *in, float *out) { mf_map_f32(p, in, out, mf_neg); }
void mf_ceil_f32(const mf_math_params *p, const float *in, float *out) { mf_map_f32(p, in, out, ceilf); }
void mf_floor_f32(const mf_math_params *p, const float *in, float *out) { mf_map_f32(p, in, out, floorf); }
void mf_round_f32(const mf_math_params *p, const float *in, float *out) { mf_map_f32(p, in, out, mf_round_even); }
void mf_sqrt_f32(const mf_math_params *p, const float *in, float *out) { mf_map_f32(p, in, out, sqrtf); }
void mf_rsqrt_f32(const mf_math_params *p, const float *in, float *out) { mf_map_f32(p, in, out, mf_rsqrt); }
void mf_square_f32(const mf_math_params *p, const float *in, float *out) { mf_map_f32(p, in, out, mf_square); }
void mf_exp_f32(const mf_math_params *p, const float *in, float *out) { mf_map_f32(p, in, out, expf); }
void mf_log_f32(const mf_math_params *p, const float *in, float *out) { mf_map_f32(p, in, out, logf); }
void mf_sin_f32(const mf_math_params *p, const float *in, float *out) { mf_map_f32(p, in, out, sinf); }
void mf_cos_f32(const mf_math_params *p, const float *in, float *out) { mf_map_f32(p, in, out, cosf); }
void mf_elu_f32(const mf_math_params *p, const float *in, float *out) { mf_map_f32(p, in, out, mf_elu); }

void mf_logical_not_b(const mf_math_params *p, const bool *in, bool *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        out[i] = !in[i];
    }
}

void mf_zeros(const mf_math_params *p, const void *in, void *out)
{
    (void)in;
    memset(out, 0, (size_t)p->size);
}
