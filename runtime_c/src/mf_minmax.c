/* microfuse runtime: MAXIMUM and MINIMUM (mf_minmax.h). Element i of the output is written after
 * element i of the inputs is read, in increasing i. */
#include <string.h>

#include "mf_minmax.h"

/* `max` is a constant at every call (the functions are always inlined), so each entry point
 * keeps one comparison. NaN follows TFLM: the comparison is false and the second operand wins. */
static inline __attribute__((always_inline)) void mf_minmax_s8(const mf_broadcast *b, const int8_t *in1,
                                                               const int8_t *in2, int8_t *out, int max)
{
    mf_bcast_iter it;
    int32_t i;
    memset(&it, 0, sizeof(it));
    for (i = 0; i < b->size; ++i) {
        const int8_t x = b->flat ? in1[i] : in1[it.o1], y = b->flat ? in2[i] : in2[it.o2];
        out[i] = (max ? x > y : x < y) ? x : y;
        if (!b->flat) {
            mf_bcast_next(b, &it);
        }
    }
}

static inline __attribute__((always_inline)) void mf_minmax_f32(const mf_broadcast *b, const float *in1,
                                                                const float *in2, float *out, int max)
{
    mf_bcast_iter it;
    int32_t i;
    memset(&it, 0, sizeof(it));
    for (i = 0; i < b->size; ++i) {
        const float x = b->flat ? in1[i] : in1[it.o1], y = b->flat ? in2[i] : in2[it.o2];
        out[i] = (max ? x > y : x < y) ? x : y;
        if (!b->flat) {
            mf_bcast_next(b, &it);
        }
    }
}

void mf_maximum_s8(const mf_minmax_s8_params *p, const int8_t *in1, const int8_t *in2, int8_t *out)
{
    mf_minmax_s8(&p->b, in1, in2, out, 1);
}

void mf_minimum_s8(const mf_minmax_s8_params *p, const int8_t *in1, const int8_t *in2, int8_t *out)
{
    mf_minmax_s8(&p->b, in1, in2, out, 0);
}

void mf_maximum_s8_k(const mf_minmax_s8_params *p, const int8_t *in, int8_t *out)
{
    mf_minmax_s8(&p->b, p->constant_index == 0 ? p->constant : in, p->constant_index == 0 ? in : p->constant,
                 out, 1);
}

void mf_minimum_s8_k(const mf_minmax_s8_params *p, const int8_t *in, int8_t *out)
{
    mf_minmax_s8(&p->b, p->constant_index == 0 ? p->constant : in, p->constant_index == 0 ? in : p->constant,
                 out, 0);
}

void mf_maximum_f32(const mf_minmax_f32_params *p, const float *in1, const float *in2, float *out)
{
    mf_minmax_f32(&p->b, in1, in2, out, 1);
}

void mf_minimum_f32(const mf_minmax_f32_params *p, const float *in1, const float *in2, float *out)
{
    mf_minmax_f32(&p->b, in1, in2, out, 0);
}

void mf_maximum_f32_k(const mf_minmax_f32_params *p, const float *in, float *out)
{
    mf_minmax_f32(&p->b, p->constant_index == 0 ? p->constant : in, p->constant_index == 0 ? in : p->constant,
                  out, 1);
}

void mf_minimum_f32_k(const mf_minmax_f32_params *p, const float *in, float *out)
{
    mf_minmax_f32(&p->b, p->constant_index == 0 ? p->constant : in, p->constant_index == 0 ? in : p->constant,
                  out, 0);
}
