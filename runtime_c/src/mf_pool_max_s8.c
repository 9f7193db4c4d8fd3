/* MAX_POOL_2D, int8. */
#include "mf_pool.h"

void mf_pool_max_s8(const mf_pool_s8_params *p, const int8_t *input, int8_t *output)
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
                for (c = 0; c < p->channels; c++) {
                    int32_t best = INT8_MIN;
                    for (y = s.y0; y < s.y1; y++) {
                        for (x = s.x0; x < s.x1; x++) {
                            best = MF_MAX(best, image[(y * p->in_w + x) * p->channels + c]);
                        }
                    }
                    *out++ = (int8_t)MF_CLAMP(best, p->act_min, p->act_max);
                }
            }
        }
    }
}
