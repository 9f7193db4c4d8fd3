/* CONV_2D int8 on few input channels (in_c 1..4: a first layer on a spectrogram or an RGB image),
 * two output pixels at a time through mf_conv2d_s8_pair's block loop (mf_pair_blocks).
 *
 * Such a window has a few values per tap, so it has no runs of whole 8-value chunks for the pair
 * kernel, and mf_conv2d_s8_gemm gathers it and computes one pixel's four channels per pass: a
 * loaded weight word serves 4 MACs. Here both pixels' windows are gathered (per window row k_w *
 * in_c values, the input zero point outside the image, which the bias fold cancels as TFLite's
 * skipped taps; zeros up to p->depth, whose weights are zero) and sign-extended once into the pair
 * buffer, then mf_pair_blocks computes four channels of both pixels per pass (a weight word serves
 * 8 MACs, 16 MACs per 4 loads, 4 SXTB16, 8 SMLAD). The params and channel table are
 * mf_conv2d_s8_gemm's, the weights the pair layout (lower/fast_gemm.py narrow_prepare).
 *
 * Access order (the planner's unstaged pixel units): both windows are read before the pair's
 * first store, as mf_conv2d_s8_pair's. No arena scratch. */
#include "mf_conv2d_s8_pair.h"
#include "mf_conv2d_s8_pair_body.h"

#ifndef MF_NARROW_DEPTH /* a pixel's gathered window (a build's mf_config.h sets its largest) */
#define MF_NARROW_DEPTH MF_GATHER_MAX
#endif
#ifndef MF_NARROW_BAND /* bytes of an output row's padded input rows (the same, its largest) */
#define MF_NARROW_BAND 1024
#endif
#define MF_NARROW_ROOM (MF_NARROW_BAND + 4) /* a band and what its last window row reads past it */

/* The k_h input rows of output row r (over batches and rows) padded into band: each bw pixels,
 * input columns -pad_w .. bw - pad_w - 1, the input zero point outside the image. Built once per
 * output row, so that the row's pixels copy their windows without border checks. */
static void mf_narrow_band(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int32_t r, int32_t bw,
                           int8_t *band)
{
    const int32_t c = p->in_c, row_bytes = p->in_w * c, width = bw * c;
    const int32_t y0 = r % p->out_h * p->stride_h - p->pad_h;
    const int8_t *image = input + r / p->out_h * p->in_h * row_bytes;
    const uint32_t zp4 = ((uint32_t)p->in_zero_point & 0xFFu) * 0x01010101u;
    const int32_t left = MF_MIN(p->pad_w * c, width), inside = MF_CLAMP(row_bytes, 0, width - left);
    int32_t ky;
    for (ky = 0; ky < p->k_h; ky++, band += width) {
        const int32_t iy = y0 + ky * p->dilation_h;
        int8_t *g = band;
        if (iy >= 0 && iy < p->in_h) {
            g = mf_gemm_copy(mf_gemm_copy(g, NULL, left, zp4), image + iy * row_bytes, inside, zp4);
        }
        mf_gemm_copy(g, NULL, width - (int32_t)(g - band), zp4);
    }
}

/* The band of output row r: the buffer (of two) that holds it, else rebuilt in the one that
 * `keep` (the pair's other pixel's band) is not. */
static const int8_t *mf_narrow_rows(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int32_t r,
                                    int32_t bw, int8_t (*bands)[MF_NARROW_ROOM], int32_t *tags,
                                    const int8_t *keep)
{
    const int j = tags[0] == r ? 0 : tags[1] == r ? 1 : bands[0] == keep ? 1 : 0;
    if (tags[j] != r) {
        tags[j] = r;
        mf_narrow_band(p, input, r, bw, bands[j]);
    }
    return bands[j];
}

/* Both pixels' windows (xa, xb: their first taps in their bands, rows `width` bytes apart)
 * sign-extended into the pair buffer: per window row its k_w * in_c values rounded up to whole
 * words (the values read past the window meet zero weights), per 4 values A's and B's even and
 * odd int16 pairs (MF_PAIR_WORD). */
static void mf_narrow_widen(const mf_conv2d_s8_gemm_params *p, const int8_t *xa, const int8_t *xb,
                            int32_t width, uint32_t *wide)
{
    const int32_t run = (p->k_w * p->in_c + 3) & ~3;
    int32_t ky, g;
    for (ky = 0; ky < p->k_h; ky++, xa += width, xb += width) {
        for (g = 0; g < run; g += 4, wide += 4) {
            const uint32_t va = mf_load32(xa + g), vb = mf_load32(xb + g);
            wide[MF_PAIR_WORD(0, 0, 0)] = mf_sxtb16(va);
            wide[MF_PAIR_WORD(0, 0, 1)] = mf_sxtb16_ror8(va);
            wide[MF_PAIR_WORD(0, 1, 0)] = mf_sxtb16(vb);
            wide[MF_PAIR_WORD(0, 1, 1)] = mf_sxtb16_ror8(vb);
        }
    }
}

/* A staged pixel's channels, clamped to the activation's bounds, to its output (after both
 * windows were read: no order to keep). */
static void mf_narrow_store(const int8_t *stage, const mf_conv2d_s8_gemm_params *p, int8_t *out)
{
    int32_t c;
    for (c = 0; c < p->out_c; c++) {
        out[c] = (int8_t)MF_CLAMP(stage[c], p->act_min, p->act_max);
    }
}

void mf_conv2d_s8_narrow(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int8_t *output)
{
    const int32_t total = p->batches * p->out_h * p->out_w, out_c = p->out_c, c = p->in_c;
    const int32_t step = p->reverse ? -1 : 1;
    const int32_t bw = (p->out_w - 1) * p->stride_w + p->k_w, width = bw * c; /* a band row */
    const int32_t filled = p->k_h * ((p->k_w * c + 3) & ~3); /* the buffer's values widened */
    /* No clamp, whole blocks: the blocks store straight into the output; else through the stage */
    const int direct = !p->clamp && out_c % 4 == 0;
    uint32_t wide[MF_NARROW_DEPTH], stage[2][MF_PAIR_OUT_MAX / 4];
    int8_t bands[2][MF_NARROW_ROOM];
    int32_t tags[2] = {-1, -1};
    mf_pair_ctx ctx;
    int32_t k = 0, j;
    for (j = 0; j < 2; j++) { /* what the last window row reads past its band: zeros */
        mf_gemm_copy(bands[j] + p->k_h * width, NULL, MF_NARROW_ROOM - MF_NARROW_BAND, 0);
    }
    for (j = filled; j < p->depth; j++) { /* the values after the window: zeros */
        wide[j] = 0;
    }
    ctx.wide = wide;
    ctx.end = wide + p->depth;
    ctx.lshift = p->lshift;
    ctx.blocks = (out_c + 3) / 4;
    ctx.w = (const uint32_t *)(const void *)p->weights;
    ctx.qb = p->quant;
    while (k < total) {
        /* pixel q first, then its partner q + step (in the run's order); a lone last one is
         * widened twice, B unused */
        const int32_t q = p->reverse ? total - 1 - k : k, r = q + step;
        const int both = k + 1 < total;
        const int8_t *ba = mf_narrow_rows(p, input, q / p->out_w, bw, bands, tags, NULL);
        const int8_t *xa = ba + q % p->out_w * p->stride_w * c, *xb = xa;
        if (both) {
            xb = mf_narrow_rows(p, input, r / p->out_w, bw, bands, tags, ba) + r % p->out_w * p->stride_w * c;
        }
        mf_narrow_widen(p, xa, xb, width, wide);
        ctx.sta = direct ? output + q * out_c : (int8_t *)stage[0];
        ctx.delta = !both ? 0 : direct ? step * out_c : (int32_t)sizeof stage[0];
        mf_pair_blocks(&ctx);
        for (j = 0; !direct && j < 1 + both; j++) { /* the staged pixels clamped to the output */
            mf_narrow_store((const int8_t *)stage[j], p, output + (q + j * step) * out_c);
        }
        k += both ? 2 : 1;
    }
}
