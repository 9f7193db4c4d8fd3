/* microfuse runtime: CUMSUM for float32 and int8 (TFLM's reference CumSum, lane by lane). */
#include "mf_movement.h"

/* The flat index of step `k` of lane (b, a) along the depth axis, last step first when reversed. */
MF_INLINE size_t mf_cumsum_at(const mf_cumsum_params *p, int32_t b, int32_t a, int32_t k)
{
    const int32_t d = p->reverse ? p->depth - 1 - k : k;
    return ((size_t)b * p->depth + d) * p->after + a;
}

void mf_cumsum_f32(const mf_cumsum_params *p, const float *in, float *out)
{
    for (int32_t b = 0; b < p->before; ++b) {
        for (int32_t a = 0; a < p->after; ++a) {
            float acc = 0.0f;
            for (int32_t k = 0; k < p->depth; ++k) {
                const size_t at = mf_cumsum_at(p, b, a, k);
                const float x = in[at];
                if (p->exclusive) {
                    out[at] = acc;
                    acc += x;
                } else {
                    acc += x;
                    out[at] = acc;
                }
            }
        }
    }
}

/* x * 2^left_shift rescaled by the input multiplier (wrapping like TFLM's int32 arithmetic). */
MF_INLINE int32_t mf_cumsum_scaled(const mf_cumsum_params *p, int32_t x)
{
    return mf_requantize((int32_t)((uint32_t)x << p->left_shift), p->input_multiplier, p->input_shift);
}

void mf_cumsum_s8(const mf_cumsum_params *p, const int8_t *in, int8_t *out)
{
    for (int32_t b = 0; b < p->before; ++b) {
        for (int32_t a = 0; a < p->after; ++a) {
            /* TFLM starts the sum at the scaled input offset, not at 0 */
            uint32_t acc = (uint32_t)mf_cumsum_scaled(p, p->input_offset);
            for (int32_t k = 0; k < p->depth; ++k) {
                const size_t at = mf_cumsum_at(p, b, a, k);
                const uint32_t y = (uint32_t)mf_cumsum_scaled(p, p->input_offset + in[at]);
                int32_t sum;
                if (p->exclusive) {
                    sum = (int32_t)acc;
                    acc += y;
                } else {
                    acc += y;
                    sum = (int32_t)acc;
                }
                const int32_t v = mf_requantize(sum, p->output_multiplier, p->output_shift) + p->output_offset;
                out[at] = (int8_t)MF_CLAMP(v, p->act_min, p->act_max);
            }
        }
    }
}
