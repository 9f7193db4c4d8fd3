/* microfuse runtime: the SPLIT family as interleaved row copies. */
#include <stdarg.h>
#include <string.h>

#include "mf_slice.h"

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
