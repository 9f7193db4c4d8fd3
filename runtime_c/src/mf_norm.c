/* microfuse runtime: L2_NORMALIZATION (int8: TFLM's GetInvSqrtQuantizedMultiplierExp, a gemmlowp
 * Newton-Raphson inverse square root in fixed point), LOG_SOFTMAX (float32) and L2_POOL_2D (float32),
 * bit-exact with TFLite Micro's reference kernels (float within rounding of libm). */
#include <math.h>

#include "mf_reduce.h"

/* gemmlowp SaturatingRoundingMultiplyByPOT<exponent> for 0 < exponent < 31. */
static int32_t mf_sat_shift_left(int32_t x, int exponent)
{
    const int32_t threshold = (int32_t)((1u << (31 - exponent)) - 1u);
    if (x > threshold) {
        return INT32_MAX;
    }
    if (x < -threshold) {
        return INT32_MIN;
    }
    return (int32_t)((uint32_t)x << exponent);
}

static int mf_clz32(uint32_t x)
{
    int n = 0;
    while (n < 32 && !(x & 0x80000000u)) {
        x <<= 1;
        ++n;
    }
    return n;
}

/* TFLM's GetInvSqrtQuantizedMultiplierExp(input, kReverseShift = -1): 1/sqrt(input) as a Q31
 * multiplier and a (left) shift. F3 values: 3 integer bits, products rescaled back to 3. */
static void mf_inv_sqrt(int32_t input, int32_t *multiplier, int32_t *shift)
{
    int32_t s = 11, half_input, x = 1 << 28, i;
    unsigned pairs;
    if (input <= 1) {
        *multiplier = INT32_MAX;
        *shift = 0;
        return;
    }
    while (input >= (1 << 29)) {
        input /= 4;
        ++s;
    }
    pairs = (unsigned)(mf_clz32((uint32_t)input) - 1) / 2 - 1;
    s -= (int32_t)pairs;
    input <<= 2 * pairs;
    half_input = mf_rounding_divide_by_pot(input >> 1, 1);
    for (i = 0; i < 5; i++) {
        /* x^3: F3*F3*F3 is F9, back to F3 (x 2^6); the update is F6, back to F3 (x 2^3) */
        const int32_t x3 = mf_sat_shift_left(
            mf_sat_round_doubling_high_mul(mf_sat_round_doubling_high_mul(x, x), x), 6);
        x = mf_sat_shift_left(mf_sat_round_doubling_high_mul((1 << 28) + (1 << 27), x) -
                                  mf_sat_round_doubling_high_mul(half_input, x3), 3);
    }
    x = mf_sat_round_doubling_high_mul(x, 1518500250); /* x sqrt(2)/2 */
    if (s < 0) {
        x = (int32_t)((uint32_t)x << -s);
        s = 0;
    }
    *multiplier = x;
    *shift = -s;
}

void mf_l2_normalization_s8(const mf_rows_params *p, const int8_t *in, int8_t *out)
{
    int32_t r, c;
    for (r = 0; r < p->outer; ++r) {
        const int8_t *x = in + r * p->depth;
        int32_t acc = 0, mult, shift;
        for (c = 0; c < p->depth; ++c) {
            const int32_t d = x[c] - p->input_zero_point;
            acc += d * d;
        }
        mf_inv_sqrt(acc, &mult, &shift);
        for (c = 0; c < p->depth; ++c) {
            /* the output scale 1/128 folded into the shift (kOutputScale = 7) */
            const int32_t v = mf_requantize(x[c] - p->input_zero_point, mult, shift + 7);
            out[r * p->depth + c] = (int8_t)MF_CLAMP(v, -128, 127);
        }
    }
}

void mf_l2_normalization_f32(const mf_rows_params *p, const float *in, float *out)
{
    int32_t r, c;
    for (r = 0; r < p->outer; ++r) {
        const float *x = in + r * p->depth;
        float sum = 0.0f, norm;
        for (c = 0; c < p->depth; ++c) {
            sum += x[c] * x[c];
        }
        norm = sqrtf(sum);
        norm = norm > 1e-6f ? norm : 1e-6f; /* TFLM's epsilon */
        for (c = 0; c < p->depth; ++c) {
            out[r * p->depth + c] = x[c] / norm;
        }
    }
}

void mf_log_softmax_f32(const mf_rows_params *p, const float *in, float *out)
{
    int32_t r, c;
    for (r = 0; r < p->outer; ++r) {
        const float *x = in + r * p->depth;
        float max = -FLT_MAX, sum = 0.0f, log_sum;
        for (c = 0; c < p->depth; ++c) {
            max = x[c] > max ? x[c] : max;
        }
        for (c = 0; c < p->depth; ++c) {
            sum += expf(x[c] - max);
        }
        log_sum = logf(sum);
        for (c = 0; c < p->depth; ++c) {
            out[r * p->depth + c] = x[c] - max - log_sum;
        }
    }
}

static int32_t mf_sat_add(int32_t a, int32_t b)
{
    const int64_t s = (int64_t)a + b;
    return (int32_t)MF_CLAMP(s, INT32_MIN, INT32_MAX);
}

/* gemmlowp RoundingHalfSum: (a + b) / 2 rounded half away from zero. */
static int32_t mf_half_sum(int32_t a, int32_t b)
{
    const int64_t s = (int64_t)a + b;
    return (int32_t)((s + (s >= 0 ? 1 : -1)) / 2);
}

/* gemmlowp one_over_one_plus_x_for_x_in_0_1, Q0.31: Newton-Raphson in Q2.29. */
static int32_t mf_one_over_one_plus_x(int32_t a)
{
    const int32_t half_denominator = mf_half_sum(a, INT32_MAX);
    int32_t x = 1515870810 + mf_sat_round_doubling_high_mul(half_denominator, -1010580540), i;
    for (i = 0; i < 3; i++) {
        const int32_t one_minus = (1 << 29) - mf_sat_round_doubling_high_mul(half_denominator, x);
        x = x + mf_sat_shift_left(mf_sat_round_doubling_high_mul(x, one_minus), 2);
    }
    return mf_sat_shift_left(x, 1);
}

/* TFLM's log_x_for_x_greater_than_or_equal_to_1<5>(Q12.19 input): log in Q5.26, computed in Q6.25. */
static int32_t mf_log_q12_to_q5(int32_t z_a)
{
    const int32_t log_2 = 1488522236, sqrt_sqrt_half = 1805811301, sqrt_half = 1518500250;
    const int32_t alpha_n = 117049297, alpha_d = 127690142, alpha_i = 1057819769, alpha_f = 638450708;
    const int32_t quarter = mf_rounding_divide_by_pot(536870912, 6); /* 1/4 in Q6.25 */
    const int a_headroom_plus_1 = mf_clz32((uint32_t)z_a);
    const int32_t r_a_tmp = mf_sat_shift_left(z_a, a_headroom_plus_1 - 1);
    const int32_t r_a = mf_sat_shift_left(mf_sat_round_doubling_high_mul(r_a_tmp, sqrt_half), 1);
    const int32_t a_pow_2 = mf_sat_add(mf_sat_shift_left(12 - a_headroom_plus_1, 25), quarter);
    const int32_t z_b = mf_sat_round_doubling_high_mul(z_a, sqrt_half);
    const int b_headroom = mf_clz32((uint32_t)z_b) - 1;
    const int32_t r_b = mf_sat_shift_left(z_a, b_headroom);
    const int32_t b_pow_2 = mf_sat_add(mf_sat_shift_left(12 - b_headroom, 25), -quarter);
    const int32_t r = MF_MIN(r_a, r_b), z_pow_2 = MF_MAX(a_pow_2, b_pow_2);
    const int32_t p = mf_half_sum(r, sqrt_sqrt_half);
    const int32_t q = 2 * (r - sqrt_sqrt_half);
    const int32_t sq = mf_sat_round_doubling_high_mul(q, q);
    const int32_t num = mf_sat_round_doubling_high_mul(q, r) +
                        mf_sat_round_doubling_high_mul(mf_sat_round_doubling_high_mul(q, sq), alpha_n);
    const int32_t denom = mf_sat_round_doubling_high_mul(p, alpha_i + q + mf_sat_round_doubling_high_mul(alpha_d, sq)) +
                          mf_sat_round_doubling_high_mul(alpha_f, q);
    const int32_t recip = mf_one_over_one_plus_x(denom);
    const int32_t num_scaled = mf_rounding_divide_by_pot(num, 6);
    return mf_sat_shift_left(mf_sat_round_doubling_high_mul(z_pow_2, log_2) +
                                 mf_sat_round_doubling_high_mul(num_scaled, recip), 1);
}

void mf_log_softmax_s8(const mf_log_softmax_s8_params *p, const int8_t *in, int8_t *out)
{
    int32_t r, c;
    for (r = 0; r < p->outer; ++r) {
        const int8_t *x = in + r * p->depth;
        int32_t max = INT8_MIN, sum = 0, log_sum, floor;
        for (c = 0; c < p->depth; ++c) {
            max = MF_MAX(max, x[c]);
        }
        for (c = 0; c < p->depth; ++c) {
            sum += p->exp12[max - x[c]];
        }
        log_sum = mf_log_q12_to_q5(sum);
        /* TFLM's adjusted_diff_min: the smallest Q5.26 value plus the log, scaled back */
        floor = MF_MAX(p->diff_min - 1, mf_requantize(log_sum + INT32_MIN, p->rev_multiplier, p->rev_shift));
        for (c = 0; c < p->depth; ++c) {
            const int32_t diff = x[c] - max;
            int32_t v = INT8_MIN;
            if (diff > floor) {
                v = mf_rounding_divide_by_pot(p->q5[-diff] - log_sum, 22) + 127;
                v = MF_CLAMP(v, INT8_MIN, INT8_MAX);
            }
            out[r * p->depth + c] = (int8_t)v;
        }
    }
}

void mf_l2_pool_f32(const mf_pool_f32_params *p, const float *input, float *output)
{
    const int32_t out_stride = p->out_stride ? p->out_stride : p->channels;
    int32_t n, oy, ox, c, y, x;
    for (n = 0; n < p->batches; n++) {
        const float *image = input + n * p->in_h * p->in_w * p->channels;
        for (oy = 0; oy < p->out_h; oy++) {
            for (ox = 0; ox < p->out_w; ox++) {
                const mf_pool_span s = mf_pool_clip(oy * p->stride_h - p->pad_h, ox * p->stride_w - p->pad_w,
                                                    p->filter_h, p->filter_w, p->in_h, p->in_w);
                const float count = (float)((s.y1 - s.y0) * (s.x1 - s.x0));
                for (c = 0; c < p->channels; c++) {
                    float sum = 0.0f, v;
                    for (y = s.y0; y < s.y1; y++) {
                        for (x = s.x0; x < s.x1; x++) {
                            const float t = image[(y * p->in_w + x) * p->channels + c];
                            sum += t * t;
                        }
                    }
                    v = sqrtf(sum / count);
                    output[c] = MF_CLAMP(v, p->act_min, p->act_max);
                }
                output += out_stride;
            }
        }
    }
}
