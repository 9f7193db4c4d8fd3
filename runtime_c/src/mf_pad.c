/* microfuse runtime: PAD (up to 5-D) for int8 (pad value = output zero point) and float32
 * (pad value 0): rows of the innermost axis are filled and copied with memset/memcpy. */
#include <string.h>

#include "mf_data.h"

static void mf_pad_bytes(const mf_pad_params *p, const uint8_t *in, uint8_t *out, size_t elem, int fill)
{
    const int32_t *is = p->in_shape, *os = p->out_shape, *b = p->before;
    const size_t row_out = (size_t)os[4] * elem;
    const size_t left = (size_t)b[4] * elem, middle = (size_t)is[4] * elem;
    int32_t i0, i1, i2, i3;
    for (i0 = 0; i0 < os[0]; ++i0) {
        for (i1 = 0; i1 < os[1]; ++i1) {
            for (i2 = 0; i2 < os[2]; ++i2) {
                for (i3 = 0; i3 < os[3]; ++i3) {
                    const int32_t j0 = i0 - b[0], j1 = i1 - b[1], j2 = i2 - b[2], j3 = i3 - b[3];
                    const int inside = j0 >= 0 && j0 < is[0] && j1 >= 0 && j1 < is[1] &&
                                       j2 >= 0 && j2 < is[2] && j3 >= 0 && j3 < is[3];
                    uint8_t *row = out + ((((size_t)i0 * os[1] + i1) * os[2] + i2) * os[3] + i3) * row_out;
                    if (!inside) {
                        memset(row, fill, row_out);
                        continue;
                    }
                    memset(row, fill, left);
                    memcpy(row + left,
                           in + ((((size_t)j0 * is[1] + j1) * is[2] + j2) * is[3] + j3) * middle, middle);
                    memset(row + left + middle, fill, row_out - left - middle);
                }
            }
        }
    }
}

void mf_pad_s8(const mf_pad_params *p, const int8_t *in, int8_t *out)
{
    mf_pad_bytes(p, (const uint8_t *)in, (uint8_t *)out, 1, (int)(uint8_t)(int8_t)p->pad_value);
}

void mf_pad_f32(const mf_pad_params *p, const float *in, float *out)
{
    /* 0.0f is all-zero bytes */
    mf_pad_bytes(p, (const uint8_t *)in, (uint8_t *)out, sizeof(float), 0);
}
