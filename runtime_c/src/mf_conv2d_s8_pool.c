/* CONV_2D / DEPTHWISE_CONV_2D int8 fused with a MAX_POOL_2D / AVERAGE_POOL_2D (mf_pool_rows.h). */
#include <float.h>

#include "mf_conv_part.h"
#include "mf_pool.h"
#include "mf_pool_rows.h"

/* One loop for both conv kinds (dw, mf_conv_part.h): the unfused kernel's loop run on one conv
 * output row at a time, stored into its ring slot; then each pooled row with the pool's own
 * arithmetic (mf_pool_rows.h). */
MF_INLINE void mf_pool_rows_s8_loop(int dw, const mf_conv_s8_any *k, mf_conv_s8_any *one,
                                    const mf_epilogue_s8 *ep, const mf_pool_rows_s8 *q, int kind,
                                    const int8_t *input, const int8_t *res, int8_t *output,
                                    int8_t *ring)
{
    const mf_epilogue_s8 e = *ep;
    const int32_t row = k->conv.out_w * k->conv.out_c; /* elements of one conv row */
    const int32_t out_stride = q->out_stride ? q->out_stride : k->conv.out_c;
    int8_t *out = output;
    int32_t n, py, px, c, y, x, next;
    mf_conv_s8_part(dw, one, 1, k->conv.out_w);
    for (n = 0; n < k->conv.batches; n++) {
        next = 0; /* the next conv row to compute */
        for (py = 0; py < q->out_h; py++) {
            const mf_pool_span rows = mf_pool_clip(py * q->stride_h - q->pad_h, 0, q->filter_h, 1,
                                                   k->conv.out_h, 1);
            next = MF_MAX(next, rows.y0); /* rows no window reads are skipped */
            for (; next < rows.y1; next++) {
                mf_conv_s8_run(dw, one, k->conv.pad_h - next * k->conv.stride_h, k->conv.pad_w, &e, kind,
                               input + n * mf_conv_s8_image(k),
                               res != NULL ? res + (n * k->conv.out_h + next) * row : NULL,
                               ring + (next % q->ring_rows) * row);
            }
            for (px = 0; px < q->out_w; px++, out += out_stride) {
                const mf_pool_span s = mf_pool_clip(py * q->stride_h - q->pad_h, px * q->stride_w - q->pad_w,
                                                    q->filter_h, q->filter_w, k->conv.out_h, k->conv.out_w);
                const int32_t count = (s.y1 - s.y0) * (s.x1 - s.x0);
                for (c = 0; c < k->conv.out_c; c++) {
                    int32_t acc = q->average ? 0 : INT8_MIN;
                    for (y = s.y0; y < s.y1; y++) {
                        const int8_t *slot = ring + (y % q->ring_rows) * row + c;
                        for (x = s.x0; x < s.x1; x++) {
                            const int32_t v = slot[x * k->conv.out_c];
                            acc = q->average ? acc + v : (v > acc ? v : acc);
                        }
                    }
                    if (q->average) { /* round half away from zero; C division truncates */
                        acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
                    }
                    out[c] = (int8_t)MF_CLAMP(acc, q->act_min, q->act_max);
                }
            }
        }
    }
}

MF_INLINE void mf_conv2d_s8_pool_body(const mf_conv2d_s8_pool_params *p, int kind, const int8_t *input,
                                      const int8_t *res, int8_t *output, int8_t *ring)
{
    mf_conv_s8_any one;
    one.conv = p->k;
    mf_pool_rows_s8_loop(0, mf_conv_s8_view(&p->k), &one, &p->ep, &p->pool, kind, input, res, output, ring);
}

MF_INLINE void mf_dwconv2d_s8_pool_body(const mf_dwconv2d_s8_pool_params *p, int kind, const int8_t *input,
                                        const int8_t *res, int8_t *output, int8_t *ring)
{
    mf_conv_s8_any one;
    one.dw = p->k;
    mf_pool_rows_s8_loop(1, mf_conv_s8_view(&p->k), &one, &p->ep, &p->pool, kind, input, res, output, ring);
}

void mf_conv2d_s8_pool(const mf_conv2d_s8_pool_params *p, const int8_t *input, int8_t *output, void *scratch)
{
    mf_conv2d_s8_pool_body(p, MF_EP_NONE, input, NULL, output, (int8_t *)scratch);
}

void mf_conv2d_s8_pool_lut(const mf_conv2d_s8_pool_params *p, const int8_t *input, int8_t *output, void *scratch)
{
    mf_conv2d_s8_pool_body(p, MF_EP_LUT, input, NULL, output, (int8_t *)scratch);
}

void mf_conv2d_s8_pool_add(const mf_conv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                           void *scratch)
{
    mf_conv2d_s8_pool_body(p, MF_EP_ADD, input, res, output, (int8_t *)scratch);
}

void mf_conv2d_s8_pool_sub(const mf_conv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                           void *scratch)
{
    mf_conv2d_s8_pool_body(p, MF_EP_SUB, input, res, output, (int8_t *)scratch);
}

void mf_conv2d_s8_pool_rsub(const mf_conv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                            void *scratch)
{
    mf_conv2d_s8_pool_body(p, MF_EP_RSUB, input, res, output, (int8_t *)scratch);
}

void mf_conv2d_s8_pool_mul(const mf_conv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                           void *scratch)
{
    mf_conv2d_s8_pool_body(p, MF_EP_MUL, input, res, output, (int8_t *)scratch);
}

void mf_dwconv2d_s8_pool(const mf_dwconv2d_s8_pool_params *p, const int8_t *input, int8_t *output, void *scratch)
{
    mf_dwconv2d_s8_pool_body(p, MF_EP_NONE, input, NULL, output, (int8_t *)scratch);
}

void mf_dwconv2d_s8_pool_lut(const mf_dwconv2d_s8_pool_params *p, const int8_t *input, int8_t *output, void *scratch)
{
    mf_dwconv2d_s8_pool_body(p, MF_EP_LUT, input, NULL, output, (int8_t *)scratch);
}

void mf_dwconv2d_s8_pool_add(const mf_dwconv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                             void *scratch)
{
    mf_dwconv2d_s8_pool_body(p, MF_EP_ADD, input, res, output, (int8_t *)scratch);
}

void mf_dwconv2d_s8_pool_sub(const mf_dwconv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                             void *scratch)
{
    mf_dwconv2d_s8_pool_body(p, MF_EP_SUB, input, res, output, (int8_t *)scratch);
}

void mf_dwconv2d_s8_pool_rsub(const mf_dwconv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                              void *scratch)
{
    mf_dwconv2d_s8_pool_body(p, MF_EP_RSUB, input, res, output, (int8_t *)scratch);
}

void mf_dwconv2d_s8_pool_mul(const mf_dwconv2d_s8_pool_params *p, const int8_t *input, const int8_t *res, int8_t *output,
                             void *scratch)
{
    mf_dwconv2d_s8_pool_body(p, MF_EP_MUL, input, res, output, (int8_t *)scratch);
}
