/* microfuse runtime: float32 ADD, SUB and MUL with broadcasting and a fused activation clamp. */
#include <string.h>

#include "mf_elementwise.h"

enum { MF_ADD, MF_SUB, MF_MUL };

static inline float mf_binary_elem(const mf_binary_f32_params *p, float a, float b, int op)
{
    const float r = op == MF_ADD ? a + b : op == MF_SUB ? a - b : a * b;
    return MF_CLAMP(r, p->act_min, p->act_max);
}

static void mf_binary_f32(const mf_binary_f32_params *p, const float *in1, const float *in2,
                          float *out, int op)
{
    int32_t i;
    if (p->b.flat) {
        for (i = 0; i < p->b.size; ++i) {
            out[i] = mf_binary_elem(p, in1[i], in2[i], op);
        }
    } else {
        mf_bcast_iter it;
        memset(&it, 0, sizeof(it));
        for (i = 0; i < p->b.size; ++i) {
            out[i] = mf_binary_elem(p, in1[it.o1], in2[it.o2], op);
            mf_bcast_next(&p->b, &it);
        }
    }
}

void mf_add_f32(const mf_binary_f32_params *p, const float *in1, const float *in2, float *out)
{
    mf_binary_f32(p, in1, in2, out, MF_ADD);
}

void mf_sub_f32(const mf_binary_f32_params *p, const float *in1, const float *in2, float *out)
{
    mf_binary_f32(p, in1, in2, out, MF_SUB);
}

void mf_mul_f32(const mf_binary_f32_params *p, const float *in1, const float *in2, float *out)
{
    mf_binary_f32(p, in1, in2, out, MF_MUL);
}

#define MF_CONST_OPERANDS(p, in) \
    ((p)->constant_index == 0 ? (p)->constant : (in)), ((p)->constant_index == 0 ? (in) : (p)->constant)

void mf_add_f32_k(const mf_binary_f32_params *p, const float *in, float *out)
{
    mf_binary_f32(p, MF_CONST_OPERANDS(p, in), out, MF_ADD);
}

void mf_sub_f32_k(const mf_binary_f32_params *p, const float *in, float *out)
{
    mf_binary_f32(p, MF_CONST_OPERANDS(p, in), out, MF_SUB);
}

void mf_mul_f32_k(const mf_binary_f32_params *p, const float *in, float *out)
{
    mf_binary_f32(p, MF_CONST_OPERANDS(p, in), out, MF_MUL);
}
