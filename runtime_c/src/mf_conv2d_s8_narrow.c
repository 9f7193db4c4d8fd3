/* CONV_2D int8 on few input channels (in_c 1..4: a first layer on a spectrogram or an RGB image),
 * strided, two output pixels at a time through mf_conv2d_s8_pair's block loop (mf_pair_blocks).
 *
 * Such a window has a few values per tap, so it has no runs of whole 8-value chunks for the pair
 * kernel, and mf_conv2d_s8_gemm gathers it and computes one pixel's four channels per pass: a
 * loaded weight word serves 4 MACs. Here the k_h input rows of an output row are copied once
 * into a band, padded with the input zero point (which the bias fold cancels, as TFLite's
 * skipped taps), so that each pixel's window rows are runs of k_w * in_c values without border
 * checks; both pixels' windows are sign-extended from the bands into the pair buffer (whole
 * words of each row, then the rows' leftover values together; zeros up to p->depth, whose
 * weights are zero), and mf_pair_blocks computes four channels of both pixels per pass (a weight
 * word serves 8 MACs: 16 MACs per 4 loads, 2 SXTB16, 8 SMLAD). The params are mf_conv2d_s8_gemm's,
 * the weights and channel table the pair stream in narrow_order (lower/fast_gemm.py).
 *
 * Access order (the planner's unstaged pixel units): both windows are read before the pair's
 * first store, as mf_conv2d_s8_pair's (a band reads its row's later windows ahead: reading ahead
 * is allowed, plan/inplace.py). No arena scratch. */
#include "mf_conv2d_s8_pair.h"
#include "mf_conv2d_s8_pair_body.h"

#ifndef MF_NARROW_DEPTH /* a pixel's widened window (a build's mf_config.h sets its largest) */
#define MF_NARROW_DEPTH MF_GATHER_MAX
#endif
#ifndef MF_NARROW_BAND /* bytes of an output row's padded input rows (the same, its largest) */
#define MF_NARROW_BAND 1024
#endif
#ifndef MF_NARROW_BANDS /* 2: some pair of a call straddles two output rows (an odd out_w); */
#define MF_NARROW_BANDS 2   /* a build whose calls' rows are all even sets 1 (lower/fast_gemm.py) */
#endif
#define MF_NARROW_TAIL (MF_GEMM_ROWS * 3 + 4) /* bytes of a window's rows' tails (k_w * in_c % 4) */

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
 * `keep` (the pair's other pixel's band) is not; with one buffer (pairs within rows), that one. */
static const int8_t *mf_narrow_rows(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int32_t r,
                                    int32_t bw, int8_t (*bands)[MF_NARROW_BAND], int32_t *tags,
                                    const int8_t *keep)
{
#if MF_NARROW_BANDS > 1
    const int j = tags[0] == r ? 0 : tags[1] == r ? 1 : bands[0] == keep ? 1 : 0;
#else
    const int j = 0;
    (void)keep;
#endif
    if (tags[j] != r) {
        tags[j] = r;
        mf_narrow_band(p, input, r, bw, bands[j]);
    }
    return bands[j];
}

/* Where mf_narrow_widen reads a window (offsets from its first tap, band rows `width` bytes
 * apart; lower/fast_gemm.py narrow_order): each window row's whole words of its k_w * in_c
 * values, then the rows' last run % 4 values (one by one, packed into `tails`), so that a row of
 * 9 values (a 3x3 RGB window) costs 2 words and a quarter, not 3. One flat list per call: the
 * per-pixel loop has no row loop. */
typedef struct {
    int32_t words, bytes;            /* counts */
    int32_t word[MF_NARROW_DEPTH / 4]; /* whole words' offsets */
    int32_t byte[MF_NARROW_TAIL];    /* the rows' leftover values' offsets */
} mf_narrow_reads;

/* A call's read list (the same for every window: band rows are `width` bytes apart). */
static void mf_narrow_plan(const mf_conv2d_s8_gemm_params *p, int32_t width, mf_narrow_reads *r)
{
    const int32_t run = p->k_w * p->in_c, whole = run & ~3;
    int32_t ky, g;
    r->words = r->bytes = 0;
    for (ky = 0; ky < p->k_h; ky++) {
        for (g = 0; g < whole; g += 4) {
            r->word[r->words++] = ky * width + g;
        }
        for (g = whole; g < run; g++) {
            r->byte[r->bytes++] = ky * width + g;
        }
    }
}

/* Both pixels' windows (xa, xb: their first taps in their bands) sign-extended into the pair
 * buffer in mf_narrow_reads' order. */
static void mf_narrow_widen(const mf_narrow_reads *r, const int8_t *xa, const int8_t *xb,
                            uint32_t (*tails)[MF_NARROW_TAIL / 4], uint32_t *wide)
{
    int8_t *ta = (int8_t *)tails[0], *tb = (int8_t *)tails[1];
    int32_t g;
    for (g = 0; g < r->words; g++) { /* (mf_pair_group: A's and B's 4 values, the next group) */
        const int32_t o = r->word[g];
        wide = mf_pair_group(mf_load32(xa + o), mf_load32(xb + o), wide);
    }
    for (g = 0; g < r->bytes; g++) {
        const int32_t o = r->byte[g];
        ta[g] = xa[o], tb[g] = xb[o];
    }
    for (g = 0; g < r->bytes; g += 4) {
        wide = mf_pair_group(tails[0][g / 4], tails[1][g / 4], wide);
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

/* The pixel after (row, col) in the run's order (step 1 or -1), rows of out_w pixels. */
MF_INLINE void mf_narrow_next(int32_t out_w, int32_t step, int32_t *row, int32_t *col)
{
    *col += step;
    if (*col == out_w || *col < 0) {
        *col = step > 0 ? 0 : out_w - 1;
        *row += step;
    }
}

void mf_conv2d_s8_narrow(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int8_t *output)
{
    const int32_t total = p->batches * p->out_h * p->out_w, out_c = p->out_c, c = p->in_c;
    const int32_t step = p->reverse ? -1 : 1;
    const int32_t bw = (p->out_w - 1) * p->stride_w + p->k_w, width = bw * c; /* a band row */
    const int32_t whole = p->k_w * c & ~3, rest = p->k_w * c - whole;
    const int32_t filled = p->k_h * whole + ((p->k_h * rest + 3) & ~3); /* the values widened */
    /* No clamp, whole blocks: the blocks store straight into the output; else through the stage */
    const int direct = !p->clamp && out_c % 4 == 0;
    uint32_t wide[MF_NARROW_DEPTH], stage[2][MF_PAIR_OUT_MAX / 4], tails[2][MF_NARROW_TAIL / 4];
    int8_t bands[MF_NARROW_BANDS][MF_NARROW_BAND];
    int32_t tags[2] = {-1, -1};
    mf_narrow_reads reads;
    mf_pair_ctx ctx;
    int32_t k, j, q = p->reverse ? total - 1 : 0;
    int32_t row = q / p->out_w, col = q % p->out_w; /* pixel q's, over batches and rows */
    for (j = 0; rest != 0 && j < MF_NARROW_TAIL / 4; j++) { /* the bytes after the tails: zeros */
        tails[0][j] = tails[1][j] = 0;
    }
    for (j = filled; j < p->depth; j++) { /* the values after the window: zeros */
        wide[j] = 0;
    }
    mf_narrow_plan(p, width, &reads);
    ctx.wide = wide;
    ctx.end = wide + p->depth;
    ctx.lshift = p->lshift;
    ctx.blocks = (out_c + 3) / 4;
    ctx.w = (const uint32_t *)(const void *)p->weights;
    ctx.qb = p->quant;
    for (k = 0; k < total; k += 2, q += 2 * step) {
        /* pixel q first, then its partner q + step (in the run's order); a lone last one is
         * widened twice, B unused */
        const int both = k + 1 < total;
        const int8_t *ba = mf_narrow_rows(p, input, row, bw, bands, tags, NULL);
        const int8_t *xa = ba + col * p->stride_w * c, *xb = xa;
        mf_narrow_next(p->out_w, step, &row, &col);
        if (both) {
            xb = mf_narrow_rows(p, input, row, bw, bands, tags, ba) + col * p->stride_w * c;
            mf_narrow_next(p->out_w, step, &row, &col);
        }
        mf_narrow_widen(&reads, xa, xb, tails, wide);
        ctx.sta = direct ? output + q * out_c : (int8_t *)stage[0];
        ctx.delta = !both ? 0 : direct ? step * out_c : (int32_t)sizeof stage[0];
        mf_pair_blocks(&ctx);
        for (j = 0; !direct && j < 1 + both; j++) { /* the staged pixels clamped to the output */
            mf_narrow_store((const int8_t *)stage[j], p, output + (q + j * step) * out_c);
        }
    }
}
