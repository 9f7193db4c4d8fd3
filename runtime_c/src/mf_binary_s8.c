/* microfuse runtime: int8 ADD, SUB and MUL with broadcasting, bit-exact with TFLite Micro's
 * reference kernels (ADD/SUB: inputs shifted left by 20 bits, rescaled to a common scale,
 * combined, rescaled to the output; MUL: product of offset inputs, rescaled once). */
#include <string.h>

#include "mf_elementwise.h"

static inline int8_t mf_addsub_elem(const mf_addsub_s8_params *p, int32_t a, int32_t b, int sub)
{
    const int32_t sa = (int32_t)((uint32_t)(a + p->input1_offset) << p->left_shift);
    const int32_t sb = (int32_t)((uint32_t)(b + p->input2_offset) << p->left_shift);
    const int32_t ra = mf_requantize(sa, p->input1_multiplier, p->input1_shift);
    const int32_t rb = mf_requantize(sb, p->input2_multiplier, p->input2_shift);
    const int32_t raw = sub ? ra - rb : ra + rb;
    const int32_t o = mf_requantize(raw, p->output_multiplier, p->output_shift) + p->output_offset;
    return (int8_t)MF_CLAMP(o, p->act_min, p->act_max);
}

static void mf_addsub_s8(const mf_addsub_s8_params *p, const int8_t *in1, const int8_t *in2,
                         int8_t *out, int sub)
{
    int32_t i;
    if (p->b.flat) {
        for (i = 0; i < p->b.size; ++i) {
            out[i] = mf_addsub_elem(p, in1[i], in2[i], sub);
        }
    } else {
        mf_bcast_iter it;
        memset(&it, 0, sizeof(it));
        for (i = 0; i < p->b.size; ++i) {
            out[i] = mf_addsub_elem(p, in1[it.o1], in2[it.o2], sub);
            mf_bcast_next(&p->b, &it);
        }
    }
}

void mf_add_s8(const mf_addsub_s8_params *p, const int8_t *in1, const int8_t *in2, int8_t *out)
{
    mf_addsub_s8(p, in1, in2, out, 0);
}

void mf_sub_s8(const mf_addsub_s8_params *p, const int8_t *in1, const int8_t *in2, int8_t *out)
{
    mf_addsub_s8(p, in1, in2, out, 1);
}

static inline int8_t mf_mul_elem(const mf_mul_s8_params *p, int32_t a, int32_t b)
{
    const int32_t prod = (a + p->input1_offset) * (b + p->input2_offset);
    const int32_t o = mf_requantize(prod, p->output_multiplier, p->output_shift) + p->output_offset;
    return (int8_t)MF_CLAMP(o, p->act_min, p->act_max);
}

void mf_mul_s8(const mf_mul_s8_params *p, const int8_t *in1, const int8_t *in2, int8_t *out)
{
    int32_t i;
    if (p->b.flat) {
        for (i = 0; i < p->b.size; ++i) {
            out[i] = mf_mul_elem(p, in1[i], in2[i]);
        }
    } else {
        mf_bcast_iter it;
        memset(&it, 0, sizeof(it));
        for (i = 0; i < p->b.size; ++i) {
            out[i] = mf_mul_elem(p, in1[it.o1], in2[it.o2]);
            mf_bcast_next(&p->b, &it);
        }
    }
}

#define MF_CONST_OPERANDS(p, in) \
    ((p)->constant_index == 0 ? (p)->constant : (in)), ((p)->constant_index == 0 ? (in) : (p)->constant)

void mf_add_s8_k(const mf_addsub_s8_params *p, const int8_t *in, int8_t *out)
{
    mf_addsub_s8(p, MF_CONST_OPERANDS(p, in), out, 0);
}

void mf_sub_s8_k(const mf_addsub_s8_params *p, const int8_t *in, int8_t *out)
{
    mf_addsub_s8(p, MF_CONST_OPERANDS(p, in), out, 1);
}

void mf_mul_s8_k(const mf_mul_s8_params *p, const int8_t *in, int8_t *out)
{
    mf_mul_s8(p, MF_CONST_OPERANDS(p, in), out);
}
