/* microfuse runtime (private): the int8 and int16 ADD, SUB and MUL loop, one always-inline body
 * instantiated by mf_binary_s8.c and mf_binary_s16.c per element size and element op (a constant
 * function pointer at each call), and the ADD/SUB element op both share. */
#ifndef MF_BINARY_BODY_H
#define MF_BINARY_BODY_H

#include <string.h>

#include "mf_int16.h"

/* One output element before its cast, requantized and clamped to the activation range: `params`
 * is the kernel's params struct, `sub` picks SUB over ADD. Plain `static inline`: the compiler
 * inlines them into the loop (-O2) or keeps one call (-Os), as it sees fit. */
typedef int32_t (*mf_binary_q_op)(const void *params, int32_t a, int32_t b, int sub);

static inline int32_t mf_addsub_q(const void *params, int32_t a, int32_t b, int sub)
{
    const mf_addsub_params *p = (const mf_addsub_params *)params;
    const int32_t sa = (int32_t)((uint32_t)(a + p->input1_offset) << p->left_shift);
    const int32_t sb = (int32_t)((uint32_t)(b + p->input2_offset) << p->left_shift);
    const int32_t ra = mf_requantize(sa, p->input1_multiplier, p->input1_shift);
    const int32_t rb = mf_requantize(sb, p->input2_multiplier, p->input2_shift);
    const int32_t raw = sub ? ra - rb : ra + rb;
    const int32_t o = mf_requantize(raw, p->output_multiplier, p->output_shift) + p->output_offset;
    return MF_CLAMP(o, p->act_min, p->act_max);
}

/* Element i of an int8 (bytes 1) or int16 (bytes 2) tensor. */
MF_INLINE int32_t mf_binary_q_load(const void *x, int bytes, int32_t i)
{
    return bytes == 1 ? ((const int8_t *)x)[i] : ((const int16_t *)x)[i];
}

MF_INLINE void mf_binary_q_store(void *y, int bytes, int32_t i, int32_t v)
{
    if (bytes == 1) {
        ((int8_t *)y)[i] = (int8_t)v;
    } else {
        ((int16_t *)y)[i] = (int16_t)v;
    }
}

/* out = in1 (op) in2 over the broadcast b, in raster order: a plain loop when no input broadcasts. */
MF_INLINE void mf_binary_q_body(const mf_broadcast *b, const void *params, mf_binary_q_op op, int sub,
                                int bytes, const void *in1, const void *in2, void *out)
{
    int32_t i;
    if (b->flat) {
        for (i = 0; i < b->size; ++i) {
            const int32_t x = mf_binary_q_load(in1, bytes, i), y = mf_binary_q_load(in2, bytes, i);
            mf_binary_q_store(out, bytes, i, op(params, x, y, sub));
        }
    } else {
        mf_bcast_iter it;
        memset(&it, 0, sizeof(it));
        for (i = 0; i < b->size; ++i) {
            const int32_t x = mf_binary_q_load(in1, bytes, it.o1), y = mf_binary_q_load(in2, bytes, it.o2);
            mf_binary_q_store(out, bytes, i, op(params, x, y, sub));
            mf_bcast_next(b, &it);
        }
    }
}

#endif /* MF_BINARY_BODY_H */
