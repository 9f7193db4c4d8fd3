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
