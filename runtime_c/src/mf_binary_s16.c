/* microfuse runtime: int16 ADD, SUB and MUL with broadcasting, bit-exact with TFLite Micro
 * (add.cc, sub.cc: reference_ops::Add / Sub / BroadcastAdd6DSlow / BroadcastQuantSubSlow on
 * int16, the general-scale path with left shift 15; mul.cc: reference_integer_ops::Mul). The
 * loop and the ADD/SUB element are mf_binary_body.h's. */
#include "mf_binary_body.h"

/* TFLM requires every int16 MUL zero point 0: no offsets. */
static inline int32_t mf_mul_s16_q(const void *params, int32_t a, int32_t b, int sub)
{
    const mf_mul_s16_params *p = (const mf_mul_s16_params *)params;
    const int32_t o = mf_requantize(a * b, p->output_multiplier, p->output_shift); /* |a*b| <= 2^30 */
    (void)sub;
    return MF_CLAMP(o, p->act_min, p->act_max);
}

/* ADD and SUB each with the sign fixed at compile time; the `_k` kernels call them. */
void mf_add_s16(const mf_addsub_params *p, const int16_t *in1, const int16_t *in2, int16_t *out)
{
    mf_binary_q_body(&p->b, p, mf_addsub_q, 0, 2, in1, in2, out);
}

void mf_sub_s16(const mf_addsub_params *p, const int16_t *in1, const int16_t *in2, int16_t *out)
{
    mf_binary_q_body(&p->b, p, mf_addsub_q, 1, 2, in1, in2, out);
}

void mf_mul_s16(const mf_mul_s16_params *p, const int16_t *in1, const int16_t *in2, int16_t *out)
{
    mf_binary_q_body(&p->b, p, mf_mul_s16_q, 0, 2, in1, in2, out);
}

void mf_add_s16_k(const mf_addsub_params *p, const int16_t *in, int16_t *out)
{
    MF_K_SIDES(int16_t, p, in, a, b);
    mf_add_s16(p, a, b, out);
}

void mf_sub_s16_k(const mf_addsub_params *p, const int16_t *in, int16_t *out)
{
    MF_K_SIDES(int16_t, p, in, a, b);
    mf_sub_s16(p, a, b, out);
}

void mf_mul_s16_k(const mf_mul_s16_params *p, const int16_t *in, int16_t *out)
{
    MF_K_SIDES(int16_t, p, in, a, b);
    mf_mul_s16(p, a, b, out);
}
