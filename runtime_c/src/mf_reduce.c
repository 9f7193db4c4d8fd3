/* microfuse runtime: REDUCE_MAX / REDUCE_MIN / REDUCE_ALL / SUM over any set of axes, and ARG_MAX /
 * ARG_MIN, bit-exact with TFLite Micro: each output starts at TFLM's init value (lowest / highest /
 * true / 0) and folds in its reduced elements in input order. */
#include <string.h>

#include "mf_reduce.h"

enum { MF_RED_MAX, MF_RED_MIN, MF_RED_SUM };

/* Element offset of the next position of an odometer over `n` axes (0 after the last). */
static int32_t mf_reduce_step(int32_t *idx, const int32_t *shape, const int32_t *stride, int32_t n,
                              int32_t offset)
{
    int32_t d;
    for (d = n - 1; d >= 0; --d) {
        offset += stride[d];
        if (++idx[d] < shape[d]) {
            return offset;
        }
        offset -= stride[d] * shape[d];
        idx[d] = 0;
    }
    return offset;
}

static int32_t mf_reduce_outputs(const mf_mean_params *p)
{
    int32_t c = 1, d;
    for (d = 0; d < p->n_kept; ++d) {
        c *= p->kept_shape[d];
    }
    return c;
}

MF_INLINE void mf_reduce_s8(const mf_mean_params *p, const int8_t *in, int8_t *out, int op)
{
    int32_t kept[MF_MEAN_DIMS], red[MF_MEAN_DIMS];
    const int32_t n_out = mf_reduce_outputs(p);
    int32_t o, r, base = 0;
    memset(kept, 0, sizeof(kept));
    for (o = 0; o < n_out; ++o) {
        int8_t v = op == MF_RED_MAX ? INT8_MIN : INT8_MAX;
        int32_t off = base;
        memset(red, 0, sizeof(red));
        for (r = 0; r < p->count; ++r) {
            const int8_t x = in[off];
            v = op == MF_RED_MAX ? (x > v ? x : v) : (x < v ? x : v);
            off = mf_reduce_step(red, p->reduced_shape, p->reduced_stride, p->n_reduced, off);
        }
        out[o] = v;
        base = mf_reduce_step(kept, p->kept_shape, p->kept_stride, p->n_kept, base);
    }
}

MF_INLINE void mf_reduce_f32(const mf_mean_params *p, const float *in, float *out, int op)
{
    int32_t kept[MF_MEAN_DIMS], red[MF_MEAN_DIMS];
    const int32_t n_out = mf_reduce_outputs(p);
    int32_t o, r, base = 0;
    memset(kept, 0, sizeof(kept));
    for (o = 0; o < n_out; ++o) {
        float v = op == MF_RED_MAX ? -FLT_MAX : op == MF_RED_MIN ? FLT_MAX : 0.0f;
        int32_t off = base;
        memset(red, 0, sizeof(red));
        for (r = 0; r < p->count; ++r) {
            const float x = in[off];
            v = op == MF_RED_MAX ? (x > v ? x : v) : op == MF_RED_MIN ? (x < v ? x : v) : x + v;
            off = mf_reduce_step(red, p->reduced_shape, p->reduced_stride, p->n_reduced, off);
        }
        out[o] = v;
        base = mf_reduce_step(kept, p->kept_shape, p->kept_stride, p->n_kept, base);
    }
}

void mf_reduce_max_s8(const mf_mean_params *p, const int8_t *in, int8_t *out)
{
    mf_reduce_s8(p, in, out, MF_RED_MAX);
}

void mf_reduce_min_s8(const mf_mean_params *p, const int8_t *in, int8_t *out)
{
    mf_reduce_s8(p, in, out, MF_RED_MIN);
}

void mf_reduce_max_f32(const mf_mean_params *p, const float *in, float *out)
{
    mf_reduce_f32(p, in, out, MF_RED_MAX);
}

void mf_reduce_min_f32(const mf_mean_params *p, const float *in, float *out)
{
    mf_reduce_f32(p, in, out, MF_RED_MIN);
}

void mf_sum_f32(const mf_mean_params *p, const float *in, float *out)
{
    mf_reduce_f32(p, in, out, MF_RED_SUM);
}

void mf_reduce_all_b(const mf_mean_params *p, const bool *in, bool *out)
{
    int32_t kept[MF_MEAN_DIMS], red[MF_MEAN_DIMS];
    const int32_t n_out = mf_reduce_outputs(p);
    int32_t o, r, base = 0;
    memset(kept, 0, sizeof(kept));
    for (o = 0; o < n_out; ++o) {
        bool v = true;
        int32_t off = base;
        memset(red, 0, sizeof(red));
        for (r = 0; r < p->count; ++r) {
            v = v && in[off];
            off = mf_reduce_step(red, p->reduced_shape, p->reduced_stride, p->n_reduced, off);
        }
        out[o] = v;
        base = mf_reduce_step(kept, p->kept_shape, p->kept_stride, p->n_kept, base);
    }
}

/* TFLM's ArgMinMax: start at element 0, move on a strictly greater (smaller) value. */
MF_INLINE void mf_arg_s8(const mf_arg_params *p, const int8_t *in, int32_t *out, int max)
{
    int32_t o, i, k;
    for (o = 0; o < p->outer; ++o) {
        for (i = 0; i < p->inner; ++i) {
            const int8_t *x = in + o * p->axis * p->inner + i;
            int32_t best = 0;
            for (k = 1; k < p->axis; ++k) {
                const int8_t v = x[k * p->inner], b = x[best * p->inner];
                if (max ? v > b : v < b) {
                    best = k;
                }
            }
            out[o * p->inner + i] = best;
        }
    }
}

MF_INLINE void mf_arg_f32(const mf_arg_params *p, const float *in, int32_t *out, int max)
{
    int32_t o, i, k;
    for (o = 0; o < p->outer; ++o) {
        for (i = 0; i < p->inner; ++i) {
            const float *x = in + o * p->axis * p->inner + i;
            int32_t best = 0;
            for (k = 1; k < p->axis; ++k) {
                const float v = x[k * p->inner], b = x[best * p->inner];
                if (max ? v > b : v < b) {
                    best = k;
                }
            }
            out[o * p->inner + i] = best;
        }
    }
}

void mf_arg_max_s8(const mf_arg_params *p, const int8_t *in, int32_t *out)
{
    mf_arg_s8(p, in, out, 1);
}

void mf_arg_min_s8(const mf_arg_params *p, const int8_t *in, int32_t *out)
{
    mf_arg_s8(p, in, out, 0);
}

void mf_arg_max_f32(const mf_arg_params *p, const float *in, int32_t *out)
{
    mf_arg_f32(p, in, out, 1);
}

void mf_arg_min_f32(const mf_arg_params *p, const float *in, int32_t *out)
{
    mf_arg_f32(p, in, out, 0);
}
