/* MAX_POOL_2D, float32. */
#include "mf_pool.h"

void mf_pool_max_f32(const mf_pool_f32_params *p, const float *input, float *output)
{
    float *out = output;
    int32_t n, oy, ox, c, y, x;

    for (n = 0; n < p->batches; n++) {
        const float *image = input + n * p->in_h * p->in_w * p->channels;
        for (oy = 0; oy < p->out_h; oy++) {
            for (ox = 0; ox < p->out_w; ox++) {
                const mf_pool_span s = mf_pool_clip(
                    oy * p->stride_h - p->pad_h, ox * p->stride_w - p->pad_w,
                    p->filter_h, p->filter_w, p->in_h, p->in_w);
                for (c = 0; c < p->channels; c++) {
                    float best = -FLT_MAX;
                    for (y = s.y0; y < s.y1; y++) {
                        for (x = s.x0; x < s.x1; x++) {
                            const float v = image[(y * p->in_w + x) * p->channels + c];
                            best = v > best ? v : best;
                        }
                    }
                    *out++ = MF_CLAMP(best, p->act_min, p->act_max);
                }
            }
        }
    }
}
