/* microfuse runtime: int16 pooling and MEAN (TFLM reference_integer_ops::AveragePool / MaxPool on
 * int16, QuantizedMeanOrSum<int16_t>). Output pixels in NHWC raster order, each after its window. */
#include <string.h>

#include "mf_pool_s16.h"

MF_INLINE void mf_pool_s16(const mf_pool_s8_params *p, const int16_t *input, int16_t *output, int average)
{
    const int32_t out_stride = p->out_stride ? p->out_stride : p->channels;
    int16_t *out = output;
    int32_t n, oy, ox, c, y, x;
    for (n = 0; n < p->batches; n++) {
        const int16_t *image = input + n * p->in_h * p->in_w * p->channels;
        for (oy = 0; oy < p->out_h; oy++) {
            for (ox = 0; ox < p->out_w; ox++) {
                const mf_pool_span s = mf_pool_clip(oy * p->stride_h - p->pad_h, ox * p->stride_w - p->pad_w,
                                                    p->filter_h, p->filter_w, p->in_h, p->in_w);
                const int32_t count = (s.y1 - s.y0) * (s.x1 - s.x0);
                for (c = 0; c < p->channels; c++) {
                    int32_t acc = average ? 0 : INT16_MIN;
                    for (y = s.y0; y < s.y1; y++) {
                        for (x = s.x0; x < s.x1; x++) {
                            const int32_t v = image[(y * p->in_w + x) * p->channels + c];
                            acc = average ? acc + v : MF_MAX(acc, v);
                        }
                    }
                    if (average) { /* round half away from zero; C division truncates */
                        acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
                    }
                    out[c] = (int16_t)MF_CLAMP(acc, p->act_min, p->act_max);
                }
                out += out_stride;
            }
        }
    }
}

void mf_pool_avg_s16(const mf_pool_s8_params *p, const int16_t *input, int16_t *output)
{
    mf_pool_s16(p, input, output, 1);
}

void mf_pool_max_s16(const mf_pool_s8_params *p, const int16_t *input, int16_t *output)
{
    mf_pool_s16(p, input, output, 0);
}

/* Element offset of the next position of an odometer over `n` axes (0 after the last). */
static int32_t mf_mean_s16_step(int32_t *idx, const int32_t *shape, const int32_t *stride, int32_t n,
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

void mf_mean_s16(const mf_mean_params *p, const int16_t *in, int16_t *out)
{
    int32_t kept[MF_MEAN_DIMS], red[MF_MEAN_DIMS];
    int32_t n_out = 1, o, r, d, base = 0;
    for (d = 0; d < p->n_kept; ++d) {
        n_out *= p->kept_shape[d];
    }
    memset(kept, 0, sizeof(kept));
    for (o = 0; o < n_out; ++o) {
        int32_t sum = 0, off = base, v;
        memset(red, 0, sizeof(red));
        for (r = 0; r < p->count; ++r) {
            sum += in[off];
            off = mf_mean_s16_step(red, p->reduced_shape, p->reduced_stride, p->n_reduced, off);
        }
        v = mf_requantize(sum - p->input_zero_point * p->count, p->multiplier, p->shift) + p->output_zero_point;
        out[o] = (int16_t)MF_CLAMP(v, INT16_MIN, INT16_MAX);
        base = mf_mean_s16_step(kept, p->kept_shape, p->kept_stride, p->n_kept, base);
    }
}
