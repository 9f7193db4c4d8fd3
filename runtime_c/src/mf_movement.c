/* microfuse runtime: element-size generic data movement (see mf_movement.h). */
#include <string.h>

#include "mf_movement.h"

/* One element of `elem` bytes; constant sizes let the compiler emit a single load/store. */
MF_INLINE void mf_put(uint8_t *dst, const uint8_t *src, int32_t elem)
{
    switch (elem) {
    case 1: *dst = *src; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    default: memcpy(dst, src, (size_t)elem); break;
    }
}

/* A row of n elements read with a step of `step` elements. */
MF_INLINE void mf_row(uint8_t *dst, const uint8_t *src, int32_t n, int32_t step, int32_t elem)
{
    if (step == 1) {
        memcpy(dst, src, (size_t)n * (size_t)elem);
        return;
    }
    for (int32_t i = 0; i < n; ++i) {
        mf_put(dst + (size_t)i * elem, src + (ptrdiff_t)i * step * elem, elem);
    }
}

void mf_move(const mf_move_params *p, const void *in, void *out)
{
    const int32_t *n = p->shape, *s = p->stride;
    const int32_t elem = p->elem;
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    for (int32_t a = 0; a < n[0]; ++a)
        for (int32_t b = 0; b < n[1]; ++b)
            for (int32_t c = 0; c < n[2]; ++c)
                for (int32_t d = 0; d < n[3]; ++d)
                    for (int32_t e = 0; e < n[4]; ++e) {
                        const ptrdiff_t at = (ptrdiff_t)p->offset + (ptrdiff_t)a * s[0] + (ptrdiff_t)b * s[1] +
                                             (ptrdiff_t)c * s[2] + (ptrdiff_t)d * s[3] + (ptrdiff_t)e * s[4];
                        mf_row(dst, src + at * elem, n[5], s[5], elem);
                        dst += (size_t)n[5] * elem;
                    }
}

/* The input index of output index `i` along one axis: -1 in the constant padding. */
MF_INLINE int32_t mf_pad_index(int32_t i, int32_t before, int32_t size)
{
    const int32_t j = i - before;
    return j >= 0 && j < size ? j : -1;
}

/* The input index of output index `i` along one axis of a mirror pad (TFLM's GetInputDimension). */
MF_INLINE int32_t mf_mirror_index(int32_t i, int32_t before, int32_t size, int32_t offset)
{
    if (i < before) {
        const int32_t edge = before + offset - 1;
        return edge - MF_MIN(i, edge - offset);
    }
    i -= before;
    if (i >= size) {
        const int32_t edge = size - (1 + offset);
        return edge - MF_MIN(i - size, edge);
    }
    return i;
}

/* Every output element in order; `mirror` picks the index rule. */
MF_INLINE void mf_pad_any(const mf_pad_x_params *p, const uint8_t *in, uint8_t *out, int mirror)
{
    const int32_t *is = p->in_shape, *os = p->out_shape, *bf = p->before;
    const int32_t elem = p->elem;
    int32_t stride[MF_MOVE_DIMS], idx[MF_MOVE_DIMS] = {0, 0, 0, 0, 0, 0};
    uint8_t fill[8];
    int32_t total = 1;
    stride[MF_MOVE_DIMS - 1] = 1;
    for (int k = MF_MOVE_DIMS - 2; k >= 0; --k) {
        stride[k] = stride[k + 1] * is[k + 1];
    }
    for (int k = 0; k < MF_MOVE_DIMS; ++k) {
        total *= os[k];
    }
    if (elem == 1) {
        fill[0] = (uint8_t)(int8_t)p->value;
    } else if (elem == 2) {
        const int16_t v = (int16_t)p->value;
        memcpy(fill, &v, 2);
    } else {
        memcpy(fill, &p->value, 4);
    }
    for (int32_t o = 0; o < total; ++o) {
        ptrdiff_t at = 0;
        int inside = 1;
        for (int k = 0; k < MF_MOVE_DIMS; ++k) {
            const int32_t j = mirror ? mf_mirror_index(idx[k], bf[k], is[k], p->offset)
                                     : mf_pad_index(idx[k], bf[k], is[k]);
            inside &= j >= 0;
            at += (ptrdiff_t)j * stride[k];
        }
        mf_put(out + (size_t)o * elem, inside ? in + at * elem : fill, elem);
        for (int k = MF_MOVE_DIMS - 1; k >= 0 && ++idx[k] == os[k]; --k) {
            idx[k] = 0; /* odometer: the next output index */
        }
    }
}

void mf_pad_x(const mf_pad_x_params *p, const void *in, void *out)
{
    mf_pad_any(p, (const uint8_t *)in, (uint8_t *)out, 0);
}

void mf_mirror_pad(const mf_pad_x_params *p, const void *in, void *out)
{
    mf_pad_any(p, (const uint8_t *)in, (uint8_t *)out, 1);
}

MF_INLINE void mf_gather_any(const mf_gather_params *p, const uint8_t *in, const int32_t *index, uint8_t *out)
{
    const size_t row = (size_t)p->inner * p->elem;
    for (int32_t b = 0; b < p->batches; ++b) {
        for (int32_t o = 0; o < p->outer; ++o) {
            const uint8_t *base = in + ((size_t)b * p->outer + o) * p->axis_size * row;
            for (int32_t c = 0; c < p->coords; ++c) {
                const int32_t at = index[(size_t)b * p->coords + c];
                if (at >= 0 && at < p->axis_size) {
                    memcpy(out, base + (size_t)at * row, row);
                } else {
                    memset(out, 0, row);
                }
                out += row;
            }
        }
    }
}

void mf_gather(const mf_gather_params *p, const void *in, const int32_t *indices, void *out)
{
    mf_gather_any(p, (const uint8_t *)in, indices, (uint8_t *)out);
}

void mf_gather_ki(const mf_gather_params *p, const void *in, void *out)
{
    mf_gather_any(p, (const uint8_t *)in, p->indices, (uint8_t *)out);
}

void mf_gather_kd(const mf_gather_params *p, const int32_t *indices, void *out)
{
    mf_gather_any(p, (const uint8_t *)p->data, indices, (uint8_t *)out);
}

MF_INLINE void mf_embedding_dq_any(const mf_embedding_dq_params *p, const int8_t *table, const int32_t *lookup,
                                   float *out)
{
    for (int32_t i = 0; i < p->lookups; ++i, out += p->inner) {
        const int32_t row = lookup[i];
        for (int32_t k = 0; k < p->inner; ++k) {
            out[k] = row >= 0 && row < p->rows ? (float)table[(size_t)row * p->inner + k] * p->scale : 0.0f;
        }
    }
}

void mf_embedding_dq(const mf_embedding_dq_params *p, const int8_t *table, const int32_t *lookup, float *out)
{
    mf_embedding_dq_any(p, table, lookup, out);
}

void mf_embedding_dq_kd(const mf_embedding_dq_params *p, const int32_t *lookup, float *out)
{
    mf_embedding_dq_any(p, p->data, lookup, out);
}

void mf_embedding_dq_ki(const mf_embedding_dq_params *p, const int8_t *table, float *out)
{
    mf_embedding_dq_any(p, table, p->indices, out);
}

MF_INLINE void mf_gather_nd_any(const mf_gather_nd_params *p, const uint8_t *in, const int32_t *index,
                                uint8_t *out)
{
    const size_t row = (size_t)p->slice * p->elem;
    for (int32_t i = 0; i < p->slices; ++i) {
        int64_t from = 0;
        for (int32_t j = 0; j < p->nd; ++j) {
            from += (int64_t)index[(size_t)i * p->nd + j] * p->count[j];
        }
        if (from >= 0 && from + p->slice <= p->total) {
            memcpy(out, in + (size_t)from * p->elem, row);
        } else {
            memset(out, 0, row);
        }
        out += row;
    }
}

void mf_gather_nd(const mf_gather_nd_params *p, const void *in, const int32_t *indices, void *out)
{
    mf_gather_nd_any(p, (const uint8_t *)in, indices, (uint8_t *)out);
}

void mf_gather_nd_ki(const mf_gather_nd_params *p, const void *in, void *out)
{
    mf_gather_nd_any(p, (const uint8_t *)in, p->indices, (uint8_t *)out);
}

void mf_gather_nd_kd(const mf_gather_nd_params *p, const int32_t *indices, void *out)
{
    mf_gather_nd_any(p, (const uint8_t *)p->data, indices, (uint8_t *)out);
}

/* Copy the operand, then the update rows at the (already clamped) start. */
MF_INLINE void mf_update_any(const mf_update_slice_params *p, const uint8_t *operand, const uint8_t *update,
                             const int32_t *start, uint8_t *out)
{
    const int32_t *n = p->shape, *u = p->update, elem = p->elem;
    int32_t stride[MF_MOVE_DIMS], total = 1;
    stride[MF_MOVE_DIMS - 1] = 1;
    for (int k = MF_MOVE_DIMS - 2; k >= 0; --k) {
        stride[k] = stride[k + 1] * n[k + 1];
    }
    for (int k = 0; k < MF_MOVE_DIMS; ++k) {
        total *= n[k];
    }
    memcpy(out, operand, (size_t)total * elem);
    const size_t row = (size_t)u[5] * elem;
    for (int32_t a = 0; a < u[0]; ++a)
        for (int32_t b = 0; b < u[1]; ++b)
            for (int32_t c = 0; c < u[2]; ++c)
                for (int32_t d = 0; d < u[3]; ++d)
                    for (int32_t e = 0; e < u[4]; ++e) {
                        const size_t at = (size_t)(start[0] + a) * stride[0] + (size_t)(start[1] + b) * stride[1] +
                                          (size_t)(start[2] + c) * stride[2] + (size_t)(start[3] + d) * stride[3] +
                                          (size_t)(start[4] + e) * stride[4] + (size_t)start[5];
                        memcpy(out + at * elem, update, row);
                        update += row;
                    }
}

void mf_update_slice(const mf_update_slice_params *p, const void *operand, const void *update,
                     const void *indices, void *out)
{
    int32_t start[MF_MOVE_DIMS];
    for (int k = 0; k < MF_MOVE_DIMS; ++k) {
        int64_t v = 0;
        if (k >= p->lead) {
            const int32_t i = k - p->lead;
            if (p->index_bytes == 8) {
                memcpy(&v, (const uint8_t *)indices + 8 * i, 8);
            } else {
                int32_t w;
                memcpy(&w, (const uint8_t *)indices + 4 * i, 4);
                v = w;
            }
        }
        v = v < 0 ? 0 : v;
        start[k] = (int32_t)MF_MIN(v, (int64_t)(p->shape[k] - p->update[k]));
    }
    mf_update_any(p, (const uint8_t *)operand, (const uint8_t *)update, start, (uint8_t *)out);
}

void mf_update_slice_k(const mf_update_slice_params *p, const void *operand, const void *update, void *out)
{
    mf_update_any(p, (const uint8_t *)operand, (const uint8_t *)update, p->start, (uint8_t *)out);
}
