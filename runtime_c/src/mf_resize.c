/* microfuse runtime: RESIZE_NEAREST_NEIGHBOR (a gather of whole pixels) and RESIZE_BILINEAR, bit-exact
 * with TFLite Micro (int8: ResizeBilinearInteger's 10-bit weights, 20-bit products rounded half away
 * from zero, as TFLM's double-rounding build does). */
#include <string.h>

#include "mf_resize.h"

void mf_resize_nearest_s8(const mf_resize_params *p, const int8_t *in, int8_t *out)
{
    int32_t b, y, x;
    for (b = 0; b < p->batches; ++b) {
        const int8_t *img = in + (size_t)b * p->in_h * p->in_w * p->depth;
        for (y = 0; y < p->out_h; ++y) {
            for (x = 0; x < p->out_w; ++x) {
                memcpy(out, img + ((size_t)p->y0[y] * p->in_w + p->x0[x]) * p->depth, (size_t)p->depth);
                out += p->depth;
            }
        }
    }
}

void mf_resize_nearest_s16(const mf_resize_params *p, const int16_t *in, int16_t *out)
{
    int32_t b, y, x;
    for (b = 0; b < p->batches; ++b) {
        const int16_t *img = in + (size_t)b * p->in_h * p->in_w * p->depth;
        for (y = 0; y < p->out_h; ++y) {
            for (x = 0; x < p->out_w; ++x) {
                memcpy(out, img + ((size_t)p->y0[y] * p->in_w + p->x0[x]) * p->depth,
                       (size_t)p->depth * sizeof(int16_t));
                out += p->depth;
            }
        }
    }
}

void mf_resize_nearest_f32(const mf_resize_params *p, const float *in, float *out)
{
    int32_t b, y, x;
    for (b = 0; b < p->batches; ++b) {
        const float *img = in + (size_t)b * p->in_h * p->in_w * p->depth;
        for (y = 0; y < p->out_h; ++y) {
            for (x = 0; x < p->out_w; ++x) {
                memcpy(out, img + ((size_t)p->y0[y] * p->in_w + p->x0[x]) * p->depth,
                       (size_t)p->depth * sizeof(float));
                out += p->depth;
            }
        }
    }
}

void mf_resize_bilinear_s8(const mf_resize_params *p, const int8_t *in, int8_t *out)
{
    const int32_t row = p->in_w * p->depth;
    int32_t b, y, x, c;
    for (b = 0; b < p->batches; ++b) {
        const int8_t *img = in + (size_t)b * p->in_h * row;
        for (y = 0; y < p->out_h; ++y) {
            const int8_t *r0 = img + p->y0[y] * row, *r1 = img + p->y1[y] * row;
            const int64_t wy = p->wy[y];
            for (x = 0; x < p->out_w; ++x) {
                const int32_t c0 = p->x0[x] * p->depth, c1 = p->x1[x] * p->depth;
                const int64_t wx = p->wx[x];
                for (c = 0; c < p->depth; ++c) {
                    const int64_t sum = r0[c0 + c] * (1024 - wy) * (1024 - wx) + r1[c0 + c] * wy * (1024 - wx) +
                                        r0[c1 + c] * (1024 - wy) * wx + r1[c1 + c] * wy * wx;
                    const int64_t round = sum > 0 ? (1 << 19) : -(1 << 19);
                    *out++ = (int8_t)((sum + round) / (1 << 20));
                }
            }
        }
    }
}

void mf_resize_bilinear_f32(const mf_resize_params *p, const float *in, float *out)
{
    const int32_t row = p->in_w * p->depth;
    int32_t b, y, x, c;
    for (b = 0; b < p->batches; ++b) {
        const float *img = in + (size_t)b * p->in_h * row;
        for (y = 0; y < p->out_h; ++y) {
            const float *r0 = img + p->y0[y] * row, *r1 = img + p->y1[y] * row;
            const float dy = p->fy[y];
            for (x = 0; x < p->out_w; ++x) {
                const int32_t c0 = p->x0[x] * p->depth, c1 = p->x1[x] * p->depth;
                const float dx = p->fx[x];
                for (c = 0; c < p->depth; ++c) {
                    /* TFLM's sum, term by term in its order */
                    *out++ = r0[c0 + c] * (1 - dy) * (1 - dx) + r1[c0 + c] * dy * (1 - dx) +
                             r0[c1 + c] * (1 - dy) * dx + r1[c1 + c] * dy * dx;
                }
            }
        }
    }
}
