/* microfuse runtime: SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND on NHWC tensors (pure data
 * movement; one channel vector per memcpy). */
#include <string.h>

#include "mf_data.h"

static void mf_s2b(const mf_space_batch_params *p, const uint8_t *in, uint8_t *out, size_t elem, int fill)
{
    const int32_t in_b = p->in_shape[0], in_h = p->in_shape[1], in_w = p->in_shape[2];
    const int32_t out_b = p->out_shape[0], out_h = p->out_shape[1], out_w = p->out_shape[2];
    const size_t depth = (size_t)p->in_shape[3] * elem;
    int32_t b, y, x;
    for (b = 0; b < out_b; ++b) {
        const int32_t src_b = b % in_b;
        const int32_t shift_w = (b / in_b) % p->block_w, shift_h = (b / in_b) / p->block_w;
        for (y = 0; y < out_h; ++y) {
            for (x = 0; x < out_w; ++x) {
                const int32_t sy = y * p->block_h + shift_h - p->pad_top;
                const int32_t sx = x * p->block_w + shift_w - p->pad_left;
                uint8_t *dst = out + (((size_t)b * out_h + y) * out_w + x) * depth;
                if (sy < 0 || sy >= in_h || sx < 0 || sx >= in_w) {
                    memset(dst, fill, depth);
                } else {
                    memcpy(dst, in + (((size_t)src_b * in_h + sy) * in_w + sx) * depth, depth);
                }
            }
        }
    }
}

static void mf_b2s(const mf_space_batch_params *p, const uint8_t *in, uint8_t *out, size_t elem)
{
    const int32_t in_b = p->in_shape[0], in_h = p->in_shape[1], in_w = p->in_shape[2];
    const int32_t out_b = p->out_shape[0], out_h = p->out_shape[1], out_w = p->out_shape[2];
    const size_t depth = (size_t)p->in_shape[3] * elem;
    int32_t b, y, x;
    for (b = 0; b < in_b; ++b) {
        const int32_t dst_b = b % out_b, spatial = b / out_b;
        const int32_t off_h = spatial / p->block_w, off_w = spatial % p->block_w;
        for (y = 0; y < in_h; ++y) {
            const int32_t dy = y * p->block_h + off_h - p->pad_top;
            if (dy < 0 || dy >= out_h) {
                continue;
            }
            for (x = 0; x < in_w; ++x) {
                const int32_t dx = x * p->block_w + off_w - p->pad_left;
                if (dx < 0 || dx >= out_w) {
                    continue;
                }
                memcpy(out + (((size_t)dst_b * out_h + dy) * out_w + dx) * depth,
                       in + (((size_t)b * in_h + y) * in_w + x) * depth, depth);
            }
        }
    }
}

void mf_space_to_batch_s8(const mf_space_batch_params *p, const int8_t *in, int8_t *out)
{
    mf_s2b(p, (const uint8_t *)in, (uint8_t *)out, 1, (int)(uint8_t)(int8_t)p->pad_value);
}

void mf_space_to_batch_f32(const mf_space_batch_params *p, const float *in, float *out)
{
    mf_s2b(p, (const uint8_t *)in, (uint8_t *)out, sizeof(float), 0);
}

void mf_batch_to_space_s8(const mf_space_batch_params *p, const int8_t *in, int8_t *out)
{
    mf_b2s(p, (const uint8_t *)in, (uint8_t *)out, 1);
}

void mf_batch_to_space_f32(const mf_space_batch_params *p, const float *in, float *out)
{
    mf_b2s(p, (const uint8_t *)in, (uint8_t *)out, sizeof(float));
}
