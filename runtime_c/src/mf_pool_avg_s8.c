/* AVERAGE_POOL_2D, int8. */
#include "mf_pool.h"

void mf_pool_avg_s8(const mf_pool_s8_params *p, const int8_t *input, int8_t *output)
{
    int8_t *out = output;
    int32_t n, oy, ox, c, y, x;

    for (n = 0; n < p->batches; n++) {
        const int8_t *image = input + n * p->in_h * p->in_w * p->channels;
        for (oy = 0; oy < p->out_h; oy++) {
            for (ox = 0; ox < p->out_w; ox++) {
                const mf_pool_span s = mf_pool_clip(
                    oy * p->stride_h - p->pad_h, ox * p->stride_w - p->pad_w,
                    p->filter_h, p->filter_w, p->in_h, p->in_w);
                /* Only the taps inside the image count (a SAME border averages fewer). */
                const int32_t count = (s.y1 - s.y0) * (s.x1 - s.x0);
                for (c = 0; c < p->channels; c++) {
                    int32_t acc = 0;
                    for (y = s.y0; y < s.y1; y++) {
                        for (x = s.x0; x < s.x1; x++) {
                            acc += image[(y * p->in_w + x) * p->channels + c];
                        }
                    }
                    /* Round half away from zero; C division truncates toward zero. */
                    acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
                    *out++ = (int8_t)MF_CLAMP(acc, p->act_min, p->act_max);
                }
            }
        }
    }
}
