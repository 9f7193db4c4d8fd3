/* microfuse runtime: SELECT_V2 (mf_select.h). */
#include <string.h>

#include "mf_select.h"

/* The three input offsets of the output's raster order. */
typedef struct {
    int32_t idx[MF_MAX_DIMS];
    int32_t c, x, y;
} mf_select_iter;

static inline void mf_select_next(const mf_select_params *p, mf_select_iter *it)
{
    int d;
    for (d = MF_MAX_DIMS - 1; d >= 0; --d) {
        it->c += p->stride_c[d];
        it->x += p->stride_x[d];
        it->y += p->stride_y[d];
        if (++it->idx[d] < p->shape[d]) {
            return;
        }
        it->c -= p->stride_c[d] * p->shape[d];
        it->x -= p->stride_x[d] * p->shape[d];
        it->y -= p->stride_y[d] * p->shape[d];
        it->idx[d] = 0;
    }
}

void mf_select_v2_f32(const mf_select_params *p, const bool *c, const float *x, const float *y, float *out)
{
    mf_select_iter it;
    int32_t i;
    memset(&it, 0, sizeof(it));
    for (i = 0; i < p->size; ++i) {
        out[i] = c[it.c] ? x[it.x] : y[it.y];
        mf_select_next(p, &it);
    }
}

void mf_select_v2_s8(const mf_select_params *p, const bool *c, const int8_t *x, const int8_t *y, int8_t *out)
{
    mf_select_iter it;
    int32_t i;
    memset(&it, 0, sizeof(it));
    for (i = 0; i < p->size; ++i) {
        out[i] = c[it.c] ? x[it.x] : y[it.y];
        mf_select_next(p, &it);
    }
}

void mf_select_v2_f32_k(const mf_select_params *p, const bool *c, const float *in, float *out)
{
    const float *k = (const float *)p->constant;
    mf_select_v2_f32(p, c, p->constant_index == 1 ? k : in, p->constant_index == 1 ? in : k, out);
}

void mf_select_v2_s8_k(const mf_select_params *p, const bool *c, const int8_t *in, int8_t *out)
{
    const int8_t *k = (const int8_t *)p->constant;
    mf_select_v2_s8(p, c, p->constant_index == 1 ? k : in, p->constant_index == 1 ? in : k, out);
}

void mf_select_v2_f32_kk(const mf_select_params *p, const bool *c, float *out)
{
    mf_select_v2_f32(p, c, (const float *)p->constant, (const float *)p->constant2, out);
}

void mf_select_v2_s8_kk(const mf_select_params *p, const bool *c, int8_t *out)
{
    mf_select_v2_s8(p, c, (const int8_t *)p->constant, (const int8_t *)p->constant2, out);
}
