/* microfuse runtime: MEAN over any set of axes. int8 is bit-exact with TFLite Micro: the int32
 * sum minus zero_point * count, requantized by a multiplier that already holds 1/count. */
#include <string.h>

#include "mf_data.h"

/* Element offset of the next position of an odometer over `n` axes; 0 after the last. */
static int32_t mf_odometer_step(int32_t *idx, const int32_t *shape, const int32_t *stride, int32_t n,
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

static int32_t mf_count(const int32_t *shape, int32_t n)
{
    int32_t c = 1, d;
    for (d = 0; d < n; ++d) {
        c *= shape[d];
    }
    return c;
}

void mf_mean_s8(const mf_mean_params *p, const int8_t *in, int8_t *out)
{
    int32_t kept[MF_MEAN_DIMS], red[MF_MEAN_DIMS];
    const int32_t n_out = mf_count(p->kept_shape, p->n_kept);
    int32_t o, r, base = 0;
    memset(kept, 0, sizeof(kept));
    for (o = 0; o < n_out; ++o) {
        int32_t sum = 0, off = base, v;
        memset(red, 0, sizeof(red));
        for (r = 0; r < p->count; ++r) {
            sum += in[off];
            off = mf_odometer_step(red, p->reduced_shape, p->reduced_stride, p->n_reduced, off);
        }
        v = mf_requantize(sum - p->input_zero_point * p->count, p->multiplier, p->shift) + p->output_zero_point;
        out[o] = (int8_t)MF_CLAMP(v, -128, 127);
        base = mf_odometer_step(kept, p->kept_shape, p->kept_stride, p->n_kept, base);
    }
}

void mf_mean_f32(const mf_mean_params *p, const float *in, float *out)
{
    int32_t kept[MF_MEAN_DIMS], red[MF_MEAN_DIMS];
    const int32_t n_out = mf_count(p->kept_shape, p->n_kept);
    int32_t o, r, base = 0;
    memset(kept, 0, sizeof(kept));
    for (o = 0; o < n_out; ++o) {
        float sum = 0.0f;
        int32_t off = base;
        memset(red, 0, sizeof(red));
        for (r = 0; r < p->count; ++r) {
            sum += in[off];
            off = mf_odometer_step(red, p->reduced_shape, p->reduced_stride, p->n_reduced, off);
        }
        out[o] = sum / (float)p->count;
        base = mf_odometer_step(kept, p->kept_shape, p->kept_stride, p->n_kept, base);
    }
}
