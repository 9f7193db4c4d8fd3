/* microfuse runtime: STRIDED_SLICE as a strided gather, SPLIT family as interleaved row copies. */
#include <stdarg.h>
#include <string.h>

#include "mf_slice.h"

void mf_strided_slice(const mf_strided_slice_params *p, const void *in, void *out)
{
    const uint8_t *src = (const uint8_t *)in + p->start;
    uint8_t *dst = (uint8_t *)out;
    const size_t row = (size_t)p->out_shape[4] * (size_t)p->elem;
    int32_t a, b, c, d, e;
    for (a = 0; a < p->out_shape[0]; ++a) {
        for (b = 0; b < p->out_shape[1]; ++b) {
            for (c = 0; c < p->out_shape[2]; ++c) {
                for (d = 0; d < p->out_shape[3]; ++d) {
                    const uint8_t *s = src + (ptrdiff_t)a * p->in_stride[0] + (ptrdiff_t)b * p->in_stride[1]
                                       + (ptrdiff_t)c * p->in_stride[2] + (ptrdiff_t)d * p->in_stride[3];
                    if (p->in_stride[4] == p->elem) { /* contiguous innermost run: one copy */
                        memcpy(dst, s, row);
                        dst += row;
                        continue;
                    }
                    for (e = 0; e < p->out_shape[4]; ++e) {
                        memcpy(dst, s + (ptrdiff_t)e * p->in_stride[4], (size_t)p->elem);
                        dst += p->elem;
                    }
                }
            }
        }
    }
}

void mf_split(const mf_split_params *p, const void *in, ...)
{
    uint8_t *outs[MF_SPLIT_MAX_OUTPUTS];
    const uint8_t *src = (const uint8_t *)in;
    int32_t k, row;
    va_list ap;
    va_start(ap, in);
    for (k = 0; k < p->n_outputs; ++k) {
        outs[k] = va_arg(ap, uint8_t *);
    }
    va_end(ap);
    for (row = 0; row < p->outer; ++row) {
        for (k = 0; k < p->n_outputs; ++k) {
            memcpy(outs[k] + (size_t)row * (size_t)p->chunk[k], src, (size_t)p->chunk[k]);
            src += p->chunk[k];
        }
    }
}
