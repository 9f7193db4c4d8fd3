/* microfuse runtime: int8 ADD, SUB and MUL with broadcasting, bit-exact with TFLite Micro's
 * reference kernels (ADD/SUB: inputs shifted left by 20 bits, rescaled to a common scale,
 * combined, rescaled to the output; MUL: product of offset inputs, rescaled once). The loop and
 * the ADD/SUB element are mf_binary_body.h's. */
#include "mf_binary_body.h"

static inline int32_t mf_mul_s8_q(const void *params, int32_t a, int32_t b, int sub)
{
    const mf_mul_s8_params *p = (const mf_mul_s8_params *)params;
    const int32_t prod = (a + p->input1_offset) * (b + p->input2_offset);
    const int32_t o = mf_requantize(prod, p->output_multiplier, p->output_shift) + p->output_offset;
    (void)sub;
    return MF_CLAMP(o, p->act_min, p->act_max);
}

/* One copy for ADD and SUB (the sign chosen per element): the smaller code. */
static void mf_addsub_s8(const mf_addsub_params *p, const int8_t *in1, const int8_t *in2, int8_t *out, int sub)
{
    mf_binary_q_body(&p->b, p, mf_addsub_q, sub, 1, in1, in2, out);
}

void mf_add_s8(const mf_addsub_params *p, const int8_t *in1, const int8_t *in2, int8_t *out)
{
    mf_addsub_s8(p, in1, in2, out, 0);
}

void mf_sub_s8(const mf_addsub_params *p, const int8_t *in1, const int8_t *in2, int8_t *out)
{
    mf_addsub_s8(p, in1, in2, out, 1);
}

void mf_mul_s8(const mf_mul_s8_params *p, const int8_t *in1, const int8_t *in2, int8_t *out)
{
    mf_binary_q_body(&p->b, p, mf_mul_s8_q, 0, 1, in1, in2, out);
}

void mf_add_s8_k(const mf_addsub_params *p, const int8_t *in, int8_t *out)
{
    MF_K_SIDES(int8_t, p, in, a, b);
    mf_addsub_s8(p, a, b, out, 0);
}

void mf_sub_s8_k(const mf_addsub_params *p, const int8_t *in, int8_t *out)
{
    MF_K_SIDES(int8_t, p, in, a, b);
    mf_addsub_s8(p, a, b, out, 1);
}

void mf_mul_s8_k(const mf_mul_s8_params *p, const int8_t *in, int8_t *out)
{
    MF_K_SIDES(int8_t, p, in, a, b);
    mf_mul_s8(p, a, b, out);
}
