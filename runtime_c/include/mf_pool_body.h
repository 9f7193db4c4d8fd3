/* microfuse runtime (private): the pooling loops as always-inline bodies, instantiated by
 * mf_pool_*.c once per epilogue kind (mf_epilogue.h); MF_EP_NONE is the reference kernel.
 * A window is clipped to the image (padding is never read nor counted), as TFLite Micro does.
 * Output pixels are visited in NHWC raster order. */
#ifndef MF_POOL_BODY_H
#define MF_POOL_BODY_H

#include "mf_epilogue.h"
#include "mf_isa.h"
#include "mf_pool.h"

/* An int16 lane holds the sum of this many int8 taps (-128 * 256 = INT16_MIN). */
#define MF_POOL_LANE_TAPS 256

/* A clipped window as runs of taps `channels` bytes apart: `rows` runs, the first at byte
 * `first`, each `row_step` bytes after the one before; a run is `quads` bytes of taps taken four
 * at a time, then `rest` bytes of taps one at a time. A window as wide as the image is one run
 * (its rows follow each other in memory): a global pool walks one loop. All in bytes, worked out
 * once a pixel, so that a group of four channels only adds its pointer. */
typedef struct {
    int32_t first, rows, row_step, quads, rest;
} mf_pool_walk;

MF_INLINE mf_pool_walk mf_pool_walk_of(mf_pool_span s, int32_t in_w, int32_t channels)
{
    mf_pool_walk w;
    const int32_t width = s.x1 - s.x0, height = s.y1 - s.y0;
    const int32_t run = width == in_w ? width * height : width;
    w.first = (s.y0 * in_w + s.x0) * channels;
    w.rows = width == in_w ? 1 : height;
    w.row_step = in_w * channels;
    w.quads = (run & ~3) * channels;
    w.rest = (run & 3) * channels;
    return w;
}

/* The window sums of channels c .. c + 3 at once: per tap one word of the four, its bytes added
 * into int16 lanes (SXTAB16: channels c, c + 2 in one word, c + 1, c + 3 in the other), so a
 * tap costs a load and two adds instead of four loads and four adds; at most MF_POOL_LANE_TAPS
 * taps. Four taps a round: the loop's branch and pointer step are paid once for four. `at` is
 * the first tap's channel c; the lanes add onto the sums' starting values. */
MF_INLINE void mf_pool_sum4(const int8_t *at, int32_t channels, mf_pool_walk w, uint32_t *even_sums,
                            uint32_t *odd_sums)
{
    uint32_t even = *even_sums, odd = *odd_sums;
    int32_t r = w.rows;   /* at least one (the caller checks that the window holds a tap) */
    do {
        const int8_t *tap = at, *end = at + w.quads;
        for (; tap != end; tap += 4 * channels) {
            const uint32_t v0 = mf_load32(tap), v1 = mf_load32(tap + channels);
            const uint32_t v2 = mf_load32(tap + 2 * channels), v3 = mf_load32(tap + 3 * channels);
            even = mf_sxtab16(even, v0);
            odd = mf_sxtab16_ror8(odd, v0);
            even = mf_sxtab16(even, v1);
            odd = mf_sxtab16_ror8(odd, v1);
            even = mf_sxtab16(even, v2);
            odd = mf_sxtab16_ror8(odd, v2);
            even = mf_sxtab16(even, v3);
            odd = mf_sxtab16_ror8(odd, v3);
        }
        for (end = tap + w.rest; tap != end; tap += channels) {
            const uint32_t v = mf_load32(tap);
            even = mf_sxtab16(even, v);
            odd = mf_sxtab16_ror8(odd, v);
        }
        at += w.row_step;
    } while (--r > 0);
    *even_sums = even;   /* lanes: channels c, c + 2, added to their start */
    *odd_sums = odd;     /* lanes: channels c + 1, c + 3 */
}

/* The average of four channels without a division nor a sign test.
 *
 * TFLite Micro rounds sum / count half away from zero. With h = count / 2 that is
 * floor((sum + h) / count) for sum >= 0 and floor((sum + h - t) / count) for sum < 0, where
 * t = 1 for an even count and 0 for an odd one (ties only exist for an even count). Adding
 * 128 * count keeps the floor's argument n = sum + 128 * count + h - t (at sum < 0) in
 * [0, 65535] as |sum| <= 128 * count <= 32768 (MF_POOL_LANE_TAPS): the lanes start at
 * 128 * count + h (`start`) and simply sum the taps onto it, modulo 2^16 as SXTAB16 wraps, which
 * is exact since the total fits. The quotient floor(n / count) is then the average plus 128, a
 * byte: XOR 0x80 takes off the 128 in all four bytes at once. A lane below `start` held a
 * negative sum: an even count takes one off it (USUB16's GE flags, SEL).
 *
 * floor(n / count) without a divide: (n * M) >> 32 with M = 2^32 / count rounded up (UMULL's
 * high word). n * M / 2^32 exceeds n / count by less than n / 2^32 < 2^-16 < 1 / count, and
 * n / count's fraction is at most 1 - 1 / count, so the floor does not move. M = 2^32 does not
 * fit for count 1: there M = 2^32 - 1 with one more in `start`, floor((n + 1)(1 - 2^-32)) == n.
 * tests/kernels/test_pool.py checks every count and every sum. */
typedef struct {
    uint32_t start;   /* both int16 lanes: 128 * count + count / 2 (+1 for count 1) */
    uint32_t recip;   /* M */
    uint32_t tie;     /* both lanes: 1 for an even count, 0 for an odd one */
} mf_pool_div;

MF_INLINE mf_pool_div mf_pool_div_of(int32_t count)
{
    mf_pool_div d;
    const uint32_t start = (uint32_t)(128 * count + count / 2 + (count == 1));
    d.start = start | start << 16;
    d.recip = count > 1 ? 0xFFFFFFFFu / (uint32_t)count + 1u : 0xFFFFFFFFu;
    d.tie = count % 2 == 0 ? 0x00010001u : 0u;
    return d;
}

#if MF_DSP
/* Each uint16 lane of x less one where it is below b's lane. */
MF_INLINE uint32_t mf_pool_tie(uint32_t x, uint32_t b, uint32_t one)
{
    uint32_t r, t;
    __asm__("usub16 %1, %2, %3\n\t"   /* GE per lane: x >= b */
            "sub %1, %2, %4\n\t"      /* no lane is 0 (n >= count / 2 >= 1): no borrow across */
            "sel %0, %2, %1"
            : "=&r"(r), "=&r"(t) : "r"(x), "r"(b), "r"(one) : "cc");
    return r;
}

/* Each byte of q clamped to [lo's byte, hi's byte], unsigned. */
MF_INLINE uint32_t mf_pool_clamp_u8(uint32_t q, uint32_t lo, uint32_t hi)
{
    uint32_t r, t;
    __asm__("usub8 %1, %2, %3\n\t"    /* GE per byte: q >= lo */
            "sel %0, %2, %3\n\t"
            "usub8 %1, %4, %0\n\t"    /* GE per byte: hi >= r */
            "sel %0, %0, %4"
            : "=&r"(r), "=&r"(t) : "r"(q), "r"(lo), "r"(hi) : "cc");
    return r;
}
#else
MF_INLINE uint32_t mf_pool_tie(uint32_t x, uint32_t b, uint32_t one)
{
    const uint32_t lo = (x & 0xFFFFu) < (b & 0xFFFFu) ? one & 0xFFFFu : 0u;
    const uint32_t hi = (x >> 16) < (b >> 16) ? one & 0xFFFF0000u : 0u;
    return x - lo - hi;
}

MF_INLINE uint32_t mf_pool_clamp_u8(uint32_t q, uint32_t lo, uint32_t hi)
{
    uint32_t r = 0;
    int k;
    for (k = 0; k < 32; k += 8) {
        const uint32_t v = q >> k & 0xFFu, l = lo >> k & 0xFFu, h = hi >> k & 0xFFu;
        r |= (v < l ? l : v > h ? h : v) << k;
    }
    return r;
}
#endif

/* floor(n / count) of one uint16 lane */
MF_INLINE uint32_t mf_pool_quot(uint32_t n, uint32_t recip)
{
    return (uint32_t)(((uint64_t)n * recip) >> 32);
}

/* average: nonzero for AVERAGE_POOL_2D, zero for MAX_POOL_2D */
MF_INLINE void mf_pool_s8_body(const mf_pool_s8_params *p, int average, const mf_epilogue_s8 *e, int kind,
                               const int8_t *input, const int8_t *res, int8_t *output)
{
    const int32_t out_stride = p->out_stride ? p->out_stride : p->channels;
    /* An average of int8 taps is an int8: the clamp matters only for a narrower activation. */
    const int clamp = p->act_min > INT8_MIN || p->act_max < INT8_MAX;
    /* the clamp's bounds plus 128 in each byte (the four averages' form before the XOR) */
    const uint32_t lo4 = (uint32_t)(uint8_t)(p->act_min + 128) * 0x01010101u;
    const uint32_t hi4 = (uint32_t)(uint8_t)(p->act_max + 128) * 0x01010101u;
    int8_t *out = output;   /* the current output pixel (out_stride elements apart) */
    int32_t i = 0;           /* dense index of the output element: the residual's index */
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
                const mf_pool_walk w = mf_pool_walk_of(s, p->in_w, p->channels);
                const int8_t *first = image + w.first;
                const mf_pool_div d = mf_pool_div_of(count);
                c = 0;
                if (average && (uint32_t)(count - 1) < MF_POOL_LANE_TAPS) {   /* 1 .. 256 taps */
                    for (; c + 4 <= p->channels; c += 4) {
                        uint32_t even = d.start, odd = d.start, word;
                        mf_pool_sum4(first + c, p->channels, w, &even, &odd);
                        if (d.tie) {
                            even = mf_pool_tie(even, d.start, d.tie);
                            odd = mf_pool_tie(odd, d.start, d.tie);
                        }
                        /* the four averages plus 128, one byte each, in channel order */
                        word = mf_pool_quot(even & 0xFFFFu, d.recip) | mf_pool_quot(odd & 0xFFFFu, d.recip) << 8 |
                               mf_pool_quot(even >> 16, d.recip) << 16 | mf_pool_quot(odd >> 16, d.recip) << 24;
                        if (clamp) {
                            word = mf_pool_clamp_u8(word, lo4, hi4);
                        }
                        word ^= 0x80808080u;
                        if (kind == MF_EP_NONE) {
                            memcpy(out + c, &word, 4);   /* one store, not four */
                            i += 4;
                        } else {
                            int32_t j;
                            for (j = 0; j < 4; j++, word >>= 8) {
                                out[c + j] = mf_ep_s8(e, kind, (int8_t)(uint8_t)word, res, i++);
                            }
                        }
                    }
                }
                for (; c < p->channels; c++) {
                    int32_t v = average ? 0 : INT8_MIN;
                    for (y = s.y0; y < s.y1; y++) {
                        for (x = s.x0; x < s.x1; x++) {
                            const int32_t t = image[(y * p->in_w + x) * p->channels + c];
                            v = average ? v + t : MF_MAX(v, t);
                        }
                    }
                    if (average) {
                        /* Round half away from zero; C division truncates toward zero. */
                        v = v > 0 ? (v + count / 2) / count : (v - count / 2) / count;
                    }
                    v = MF_CLAMP(v, p->act_min, p->act_max);
                    out[c] = mf_ep_s8(e, kind, v, res, i++);
                }
                out += out_stride;
            }
        }
    }
}

/* float32: sum in window order, then one division (as TFLite); or the maximum. */
MF_INLINE void mf_pool_f32_body(const mf_pool_f32_params *p, int average, const mf_epilogue_f32 *e, int kind,
                                const float *input, const float *res, float *output)
{
    const int32_t out_stride = p->out_stride ? p->out_stride : p->channels;
    float *out = output;    /* the current output pixel (out_stride elements apart) */
    int32_t i = 0;           /* dense index of the output element: the residual's index */
    int32_t n, oy, ox, c, y, x;

    for (n = 0; n < p->batches; n++) {
        const float *image = input + n * p->in_h * p->in_w * p->channels;
        for (oy = 0; oy < p->out_h; oy++) {
            for (ox = 0; ox < p->out_w; ox++) {
                const mf_pool_span s = mf_pool_clip(
                    oy * p->stride_h - p->pad_h, ox * p->stride_w - p->pad_w,
                    p->filter_h, p->filter_w, p->in_h, p->in_w);
                const float count = (float)((s.y1 - s.y0) * (s.x1 - s.x0));
                for (c = 0; c < p->channels; c++) {
                    float acc = average ? 0.0f : -FLT_MAX;
                    for (y = s.y0; y < s.y1; y++) {
                        for (x = s.x0; x < s.x1; x++) {
                            const float v = image[(y * p->in_w + x) * p->channels + c];
                            acc = average ? acc + v : (v > acc ? v : acc);
                        }
                    }
                    if (average) {
                        acc = acc / count;
                    }
                    acc = MF_CLAMP(acc, p->act_min, p->act_max);
                    out[c] = mf_ep_f32(e, kind, acc, res, i++);
                }
                out += out_stride;
            }
        }
    }
}

#endif /* MF_POOL_BODY_H */
