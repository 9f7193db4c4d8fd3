/* microfuse runtime: int16 ADD, SUB and MUL with broadcasting, bit-exact with TFLite Micro
 * (add.cc, sub.cc: reference_ops::Add / Sub / BroadcastAdd6DSlow / BroadcastQuantSubSlow on
 * int16, the general-scale path with left shift 15; mul.cc: reference_integer_ops::Mul). */
#include <string.h>

#include "mf_int16.h"

MF_INLINE int16_t mf_addsub_s16_elem(const mf_addsub_s16_params *p, int32_t a, int32_t b, int sub)
{
    const int32_t sa = (int32_t)((uint32_t)(a + p->input1_offset) << p->left_shift);
    const int32_t sb = (int32_t)((uint32_t)(b + p->input2_offset) << p->left_shift);
    const int32_t ra = mf_requantize(sa, p->input1_multiplier, p->input1_shift);
    const int32_t rb = mf_requantize(sb, p->input2_multiplier, p->input2_shift);
    const int32_t raw = sub ? ra - rb : ra + rb;
    const int32_t o = mf_requantize(raw, p->output_multiplier, p->output_shift) + p->output_offset;
    return (int16_t)MF_CLAMP(o, p->act_min, p->act_max);
}

MF_INLINE void mf_addsub_s16(const mf_addsub_s16_params *p, const int16_t *in1, const int16_t *in2,
                             int16_t *out, int sub)
{
    int32_t i;
    if (p->b.flat) {
        for (i = 0; i < p->b.size; ++i) {
            out[i] = mf_addsub_s16_elem(p, in1[i], in2[i], sub);
        }
    } else {
        mf_bcast_iter it;
        memset(&it, 0, sizeof(it));
        for (i = 0; i < p->b.size; ++i) {
            out[i] = mf_addsub_s16_elem(p, in1[it.o1], in2[it.o2], sub);
            mf_bcast_next(&p->b, &it);
        }
    }
}

void mf_add_s16(const mf_addsub_s16_params *p, const int16_t *in1, const int16_t *in2, int16_t *out)
{
    mf_addsub_s16(p, in1, in2, out, 0);
}

void mf_sub_s16(const mf_addsub_s16_params *p, const int16_t *in1, const int16_t *in2, int16_t *out)
{
    mf_addsub_s16(p, in1, in2, out, 1);
}

void mf_add_s16_k(const mf_addsub_s16_params *p, const int16_t *in, int16_t *out)
{
    if (p->constant_index == 0) {
        mf_addsub_s16(p, p->constant, in, out, 0);
    } else {
        mf_addsub_s16(p, in, p->constant, out, 0);
    }
}

void mf_sub_s16_k(const mf_addsub_s16_params *p, const int16_t *in, int16_t *out)
{
    if (p->constant_index == 0) {
        mf_addsub_s16(p, p->constant, in, out, 1);
    } else {
        mf_addsub_s16(p, in, p->constant, out, 1);
    }
}

MF_INLINE void mf_mul_s16_run(const mf_mul_s16_params *p, const int16_t *in1, const int16_t *in2, int16_t *out)
{
    int32_t i;
    mf_bcast_iter it;
    memset(&it, 0, sizeof(it));
    for (i = 0; i < p->b.size; ++i) {
        const int32_t a = p->b.flat ? in1[i] : in1[it.o1], b = p->b.flat ? in2[i] : in2[it.o2];
        const int32_t o = mf_requantize(a * b, p->output_multiplier, p->output_shift); /* |a*b| <= 2^30 */
        out[i] = (int16_t)MF_CLAMP(o, p->act_min, p->act_max);
        if (!p->b.flat) {
            mf_bcast_next(&p->b, &it);
        }
    }
}

void mf_mul_s16(const mf_mul_s16_params *p, const int16_t *in1, const int16_t *in2, int16_t *out)
{
    mf_mul_s16_run(p, in1, in2, out);
}

void mf_mul_s16_k(const mf_mul_s16_params *p, const int16_t *in, int16_t *out)
{
    if (p->constant_index == 0) {
        mf_mul_s16_run(p, p->constant, in, out);
    } else {
        mf_mul_s16_run(p, in, p->constant, out);
    }
}
