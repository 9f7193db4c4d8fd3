/* TRANSPOSE_CONV, int8 (per-channel requantization), 16x8 and float32: see mf_transpose_conv.h. */
#include "mf_transpose_conv.h"
#include "mf_conv16.h"

/* The filter taps k that reach output row (or column) o: input index i = (o + pad - k) / stride
 * must be whole and in [0, n). Returns the largest such k (or -1); the others are k - stride,
 * k - 2 stride, ... down to *lo. Descending k is ascending i: TFLM's scatter order. */
MF_INLINE int32_t mf_tconv_taps(int32_t o, int32_t pad, int32_t stride, int32_t k_size, int32_t n, int32_t *lo)
{
    const int32_t t = o + pad;
    const int32_t top = MF_MIN(k_size - 1, t);
    *lo = MF_MAX(0, t - (n - 1) * stride);
    return top < *lo ? -1 : t - ((t - top + stride - 1) / stride) * stride;
}

void mf_transpose_conv_s8(const mf_transpose_conv_s8_params *p, const int8_t *input, int8_t *output)
{
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *in = input + (size_t)b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            int32_t ky_lo, kx_lo;
            const int32_t ky_hi = mf_tconv_taps(oy, p->pad_h, p->stride_h, p->k_h, p->in_h, &ky_lo);
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += p->out_c) {
                const int32_t kx_hi = mf_tconv_taps(ox, p->pad_w, p->stride_w, p->k_w, p->in_w, &kx_lo);
                for (int32_t oc = 0; oc < p->out_c; ++oc) {
                    int32_t acc = 0;
                    for (int32_t ky = ky_hi; ky >= ky_lo; ky -= p->stride_h) {
                        const int32_t iy = (oy + p->pad_h - ky) / p->stride_h;
                        for (int32_t kx = kx_hi; kx >= kx_lo; kx -= p->stride_w) {
                            const int32_t ix = (ox + p->pad_w - kx) / p->stride_w;
                            const int8_t *x = in + ((size_t)iy * p->in_w + ix) * p->in_c;
                            const int8_t *w = p->weights + (((size_t)oc * p->k_h + ky) * p->k_w + kx) * p->in_c;
                            for (int32_t ic = 0; ic < p->in_c; ++ic) {
                                acc += (x[ic] - p->in_zero_point) * w[ic];
                            }
                        }
                    }
                    acc = mf_requantize(acc + p->bias[oc], p->mult[oc], p->shift[oc]) + p->out_zero_point;
                    output[oc] = (int8_t)MF_CLAMP(acc, p->act_min, p->act_max);
                }
            }
        }
    }
}

void mf_transpose_conv_f32(const mf_transpose_conv_f32_params *p, const float *input, float *output)
{
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *in = input + (size_t)b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            int32_t ky_lo, kx_lo;
            const int32_t ky_hi = mf_tconv_taps(oy, p->pad_h, p->stride_h, p->k_h, p->in_h, &ky_lo);
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += p->out_c) {
                const int32_t kx_hi = mf_tconv_taps(ox, p->pad_w, p->stride_w, p->k_w, p->in_w, &kx_lo);
                for (int32_t oc = 0; oc < p->out_c; ++oc) {
                    float acc = 0.0f;
                    for (int32_t ky = ky_hi; ky >= ky_lo; ky -= p->stride_h) {
                        const int32_t iy = (oy + p->pad_h - ky) / p->stride_h;
                        for (int32_t kx = kx_hi; kx >= kx_lo; kx -= p->stride_w) {
                            const int32_t ix = (ox + p->pad_w - kx) / p->stride_w;
                            const float *x = in + ((size_t)iy * p->in_w + ix) * p->in_c;
                            const float *w = p->weights + (((size_t)oc * p->k_h + ky) * p->k_w + kx) * p->in_c;
                            for (int32_t ic = 0; ic < p->in_c; ++ic) {
                                acc += x[ic] * w[ic];
                            }
                        }
                    }
                    if (p->bias != NULL) {
                        acc += p->bias[oc];
                    }
                    output[oc] = MF_CLAMP(acc, p->act_min, p->act_max);
                }
            }
        }
    }
}

/* 16x8: TFLM's TransposeConv<int64_t> (int64 sums and bias, no offsets). */
void mf_transpose_conv_s16(const mf_transpose_conv_s16_params *p, const int16_t *input, int16_t *output)
{
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *in = input + (size_t)b * p->in_h * p->in_w * p->in_c;
        for (int32_t oy = 0; oy < p->out_h; ++oy) {
            int32_t ky_lo, kx_lo;
            const int32_t ky_hi = mf_tconv_taps(oy, p->pad_h, p->stride_h, p->k_h, p->in_h, &ky_lo);
            for (int32_t ox = 0; ox < p->out_w; ++ox, output += p->out_c) {
                const int32_t kx_hi = mf_tconv_taps(ox, p->pad_w, p->stride_w, p->k_w, p->in_w, &kx_lo);
                for (int32_t oc = 0; oc < p->out_c; ++oc) {
                    int64_t acc = 0;
                    for (int32_t ky = ky_hi; ky >= ky_lo; ky -= p->stride_h) {
                        const int32_t iy = (oy + p->pad_h - ky) / p->stride_h;
                        for (int32_t kx = kx_hi; kx >= kx_lo; kx -= p->stride_w) {
                            const int32_t ix = (ox + p->pad_w - kx) / p->stride_w;
                            const int16_t *x = in + ((size_t)iy * p->in_w + ix) * p->in_c;
                            const int8_t *w = p->weights + (((size_t)oc * p->k_h + ky) * p->k_w + kx) * p->in_c;
                            for (int32_t ic = 0; ic < p->in_c; ++ic) {
                                acc += (int32_t)x[ic] * w[ic];
                            }
                        }
                    }
                    output[oc] = mf_out_s16(acc + p->bias[oc], 1, p->mult[oc], p->shift[oc], p->act_min, p->act_max);
                }
            }
        }
    }
}
