/* CONV_2D / DEPTHWISE_CONV_2D float32 fused with a MAX_POOL_2D / AVERAGE_POOL_2D (mf_pool_rows.h). */
#include <float.h>

#include "mf_conv_body.h"
#include "mf_pool.h"
#include "mf_pool_rows.h"

/* One loop for both conv kinds: `body` is the unfused kernel's loop, run on one conv output row
 * (out_h = 1, the padding shifted to the row's window) stored into its ring slot. */
#define MF_POOL_ROWS_f32_LOOP(KTYPE, body)                                                     \
    const mf_epilogue_f32 e = p->ep;                                                         \
    const mf_pool_rows_f32 *q = &p->pool;                                                    \
    KTYPE one = p->k;                                                                          \
    const int32_t channels = p->k.out_c;                                                       \
    const int32_t row = p->k.out_w * channels;  /* elements of one conv row */                 \
    const int32_t image = p->k.in_h * p->k.in_w * p->k.in_c;                                   \
    const int32_t out_stride = q->out_stride ? q->out_stride : channels;                       \
    float *out = output;                                                                         \
    int32_t n, py, px, c, y, x, next;                                                          \
    one.batches = 1;                                                                           \
    one.out_h = 1;                                                                             \
    one.out_stride = 0; /* a dense ring row */                                                 \
    for (n = 0; n < p->k.batches; n++) {                                                       \
        next = 0; /* the next conv row to compute */                                           \
        for (py = 0; py < q->out_h; py++) {                                                    \
            const mf_pool_span rows = mf_pool_clip(py * q->stride_h - q->pad_h, 0, q->filter_h, 1, \
                                                   p->k.out_h, 1);                             \
            next = MF_MAX(next, rows.y0); /* rows no window reads are skipped */              \
            for (; next < rows.y1; next++) {                                                   \
                one.pad_h = p->k.pad_h - next * p->k.stride_h;                                 \
                body(&one, &e, kind, input + n * image,                                        \
                     res != NULL ? res + (n * p->k.out_h + next) * row : NULL,                 \
                     ring + (next % q->ring_rows) * row);                                      \
            }                                                                                  \
            for (px = 0; px < q->out_w; px++, out += out_stride) {                             \
                const mf_pool_span s = mf_pool_clip(py * q->stride_h - q->pad_h,               \
                                                    px * q->stride_w - q->pad_w, q->filter_h,  \
                                                    q->filter_w, p->k.out_h, p->k.out_w);      \
                const int32_t count = (s.y1 - s.y0) * (s.x1 - s.x0);                           \
                for (c = 0; c < channels; c++) {                                               \
                    float acc = q->average ? 0.0f : -FLT_MAX;                                   \
                    for (y = s.y0; y < s.y1; y++) {                                            \
                        const float *slot = ring + (y % q->ring_rows) * row + c;                 \
                        for (x = s.x0; x < s.x1; x++) {                                        \
                            const float v = slot[x * channels];                                \
                            acc = q->average ? acc + v : (v > acc ? v : acc);                  \
                        }                                                                      \
                    }                                                                          \
                    if (q->average) { \
                        acc = acc / (float)count; \
                    }                                                                  \
                    out[c] = (float)MF_CLAMP(acc, q->act_min, q->act_max);                       \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }

MF_BODY void mf_conv2d_f32_pool_body(const mf_conv2d_f32_pool_params *p, int kind, const float *input,
                                     const float *res, float *output, float *ring)
{
    MF_POOL_ROWS_f32_LOOP(mf_conv2d_f32_params, mf_conv2d_f32_body)
}

MF_BODY void mf_dwconv2d_f32_pool_body(const mf_dwconv2d_f32_pool_params *p, int kind, const float *input,
                                       const float *res, float *output, float *ring)
{
    MF_POOL_ROWS_f32_LOOP(mf_dwconv2d_f32_params, mf_dwconv2d_f32_body)
}

#define MF_POOL_ROWS_F32_VARIANTS(name, ptype, body)                                                     \
    void name(const ptype *p, const float *input, float *output, void *scratch)                          \
    {                                                                                                    \
        body(p, MF_EP_NONE, input, NULL, output, (float *)scratch);                                      \
    }                                                                                                    \
    void name##_ep(const ptype *p, const float *input, float *output, void *scratch)                     \
    {                                                                                                    \
        body(p, MF_EP_F32, input, NULL, output, (float *)scratch);                                       \
    }                                                                                                    \
    void name##_ep_res(const ptype *p, const float *input, const float *res, float *output, void *scratch) \
    {                                                                                                    \
        body(p, MF_EP_F32, input, res, output, (float *)scratch);                                        \
    }

MF_POOL_ROWS_F32_VARIANTS(mf_conv2d_f32_pool, mf_conv2d_f32_pool_params, mf_conv2d_f32_pool_body)
MF_POOL_ROWS_F32_VARIANTS(mf_dwconv2d_f32_pool, mf_dwconv2d_f32_pool_params, mf_dwconv2d_f32_pool_body)
