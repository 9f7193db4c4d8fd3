/* CONV_2D int8 on few input channels (in_c 1..4: a first layer on a spectrogram or an RGB image),
 * strided, two output pixels at a time through mf_conv2d_s8_pair's block loop (mf_pair_blocks).
 *
 * Such a window has a few values per tap, so it has no runs of whole 8-value chunks for the pair
 * kernel, and mf_conv2d_s8_gemm gathers it and computes one pixel's four channels per pass: a
 * loaded weight word serves 4 MACs. Here both pixels' windows are sign-extended into the pair
 * buffer by a read list made at compile time (whole words of each window row, then the rows'
 * leftover values together, padded to whole 4s: p->depth values, narrow_depth), and mf_pair_blocks
 * computes four channels of both pixels per pass (a weight word serves 8 MACs: 16 MACs per 4
 * loads, 2 SXTB16, 8 SMLAD). Pairs whose windows lie inside the image are read straight from the
 * input; the others from a band per output row: its k_h input rows' columns padded with the
 * input zero point (which the bias fold cancels, as TFLite's skipped taps), so that each window
 * row is a run of k_w * in_c values without border checks, each list with its rows' pitch. A row
 * inside the image vertically copies into its band only the columns of the pixels at its ends
 * (VWW: 8 of 97 columns). The params are mf_conv2d_s8_gemm's, the weights and channel table the
 * pair stream in narrow_order, the lists in zrow (lower/fast_gemm.py).
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
#ifndef MF_NARROW_STAGED  /* 1: some call finishes through the stage (a clamp, or out_c % 4); */
#define MF_NARROW_STAGED 1 /* a build whose calls all store straight sets 0 (lower/fast_gemm.py) */
#endif
#ifndef MF_NARROW_WIDE /* words of the pair buffers into which a call storing straight widens */
#define MF_NARROW_WIDE (4 * MF_NARROW_DEPTH) /* pairs ahead, for one mf_pair_run (lower/fast_gemm.py) */
#endif
#ifndef MF_NARROW_BANDS /* 2: some pair of a call straddles two output rows (an odd out_w); */
#define MF_NARROW_BANDS 2   /* a build whose calls' rows are all even sets 1 (lower/fast_gemm.py) */
#endif

/* The k_h input rows of output row r (over batches and rows) padded into band: each bw pixels,
 * input columns -pad_w .. bw - pad_w - 1, the input zero point outside the image, whole words
 * apart (so that rows pad by words). For a row partly outside the image vertically (else
 * mf_narrow_part's columns). */
static void mf_narrow_band(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int32_t r, int32_t bw,
                           uint32_t *band)
{
    const int32_t c = p->in_c, row_bytes = p->in_w * c, used = bw * c, words = (used + 3) / 4;
    const int32_t y0 = r % p->out_h * p->stride_h - p->pad_h;
    const int8_t *image = input + r / p->out_h * p->in_h * row_bytes;
    const uint32_t zp4 = ((uint32_t)p->in_zero_point & 0xFFu) * 0x01010101u;
    const int32_t left = MF_MIN(p->pad_w * c, used), inside = MF_CLAMP(row_bytes, 0, used - left);
    /* the words a row inside the image pads (the zero point), whole: then its values over them */
    const int32_t pad_left = (left + 3) / 4, pad_right = (left + inside) / 4;
    int32_t ky, j;
    for (ky = 0; ky < p->k_h; ky++, band += words) {
        const int32_t iy = y0 + ky * p->dilation_h;
        if (iy < 0 || iy >= p->in_h) {
            for (j = 0; j < words; j++) {
                band[j] = zp4;
            }
            continue;
        }
        for (j = 0; j < pad_left; j++) {
            band[j] = zp4;
        }
        for (j = pad_right; j < words; j++) {
            band[j] = zp4;
        }
        mf_gemm_copy((int8_t *)band + left, image + iy * row_bytes, inside, 0);
    }
}

/* Where output row r's windows lie: `inner` when all its k_h input rows lie inside the image and
 * some of its pixels' windows inside it horizontally (columns lo .. hi: read straight from the
 * input, column ox's first tap at input + at + ox * stride_w * in_c), else 0. */
typedef struct {
    int inner;
    int32_t at;
} mf_narrow_row;

MF_INLINE void mf_narrow_at(const mf_conv2d_s8_gemm_params *p, int32_t r, int32_t lo, int32_t hi, mf_narrow_row *w)
{
    const int32_t row_bytes = p->in_w * p->in_c, y0 = r % p->out_h * p->stride_h - p->pad_h;
    w->inner = lo <= hi && y0 >= 0 && y0 + (p->k_h - 1) * p->dilation_h < p->in_h;
    w->at = (r / p->out_h * p->in_h + y0) * row_bytes - p->pad_w * p->in_c;
}

/* Band columns j0 .. j1 - 1 (input columns j - pad_w) of an inner row w's k_h input rows
 * (dilation_h rows apart, all inside the image) into band (its rows `words` words apart): the
 * input zero point outside the image horizontally, by bytes, the values inside copied by words,
 * the last overlapping the one before (bytes if less than a word). */
static void mf_narrow_part(const mf_conv2d_s8_gemm_params *p, const int8_t *input, const mf_narrow_row *w,
                           int32_t j0, int32_t j1, uint32_t *band, int32_t words)
{
    const int32_t c = p->in_c, rstep = p->dilation_h * p->in_w * c, left = p->pad_w * c;
    /* the band row's bytes [b, e), those inside the image [ib, ie) */
    const int32_t b = j0 * c, e = j1 * c, ib = MF_CLAMP(left, b, e), ie = MF_CLAMP(left + p->in_w * c, ib, e);
    const int32_t n = ie - ib;
    const int8_t *s = input + (w->at + ib);
    int8_t *d = (int8_t *)band;
    int32_t ky, i;
    for (ky = 0; ky < p->k_h; ky++, s += rstep, d += 4 * words) {
        uint32_t v;
        for (i = b; i < ib; i++) {
            d[i] = (int8_t)p->in_zero_point;
        }
        for (i = ie; i < e; i++) {
            d[i] = (int8_t)p->in_zero_point;
        }
        if (n < 4) {
            for (i = 0; i < n; i++) {
                d[ib + i] = s[i];
            }
            continue;
        }
        for (i = 0; i < n - 4; i += 4) {
            v = mf_load32(s + i);
            memcpy(d + ib + i, &v, 4);
        }
        v = mf_load32(s + n - 4);
        memcpy(d + ie - 4, &v, 4);
    }
}

/* The band of output row r: the buffer (of two) that holds it, else rebuilt in the one that
 * `keep` (the pair's other pixel's band) is not; with one buffer (pairs within rows), that one.
 * A row whose pixels' windows lie inside the image, but for some at its ends (w: mf_narrow_at),
 * reads only those from the band (and their pairs' other pixels, and its first and last, which
 * pair across rows in a call of odd rows): its band holds the columns of pixels 0 .. lo and
 * hi .. out_w - 1 only, those that any of them read (VWW's: its last two pixels'). */
static const int8_t *mf_narrow_rows(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int32_t r,
                                    int32_t bw, uint32_t (*bands)[MF_NARROW_BAND / 4], int32_t *tags,
                                    const int8_t *keep, const mf_narrow_row *w, int32_t lo, int32_t hi)
{
#if MF_NARROW_BANDS > 1
    const int j = tags[0] == r ? 0 : tags[1] == r ? 1 : (const int8_t *)bands[0] == keep ? 1 : 0;
#else
    const int j = 0;
    (void)keep;
#endif
    if (tags[j] != r) {
        const int32_t split = lo * p->stride_w + p->k_w, rest = hi * p->stride_w; /* the parts' columns */
        const int32_t words = (bw * p->in_c + 3) / 4;
        tags[j] = r;
        if (w->inner && split < rest) { /* the columns at its ends, which it reads from the band */
            const int odd = p->out_w % 2; /* (pairs across rows, a lone last pixel: its end pixels) */
            if (lo > 0 || odd) {
                mf_narrow_part(p, input, w, 0, split, bands[j], words);
            }
            if (hi < p->out_w - 1 || odd) {
                mf_narrow_part(p, input, w, rest, bw, bands[j], words);
            }
        } else if (w->inner) { /* (its rows inside the image: a copy of the columns, no more) */
            mf_narrow_part(p, input, w, 0, bw, bands[j], words);
        } else {
            mf_narrow_band(p, input, r, bw, bands[j]);
        }
    }
    return (const int8_t *)bands[j];
}

/* Where mf_narrow_widen reads a window (offsets from its first tap: its rows a band row apart in
 * the band, dilation_h input rows in the input): each window row's whole words of its k_w * in_c
 * values, then the rows' last run % 4 values (one by one, packed four to a word in registers), so
 * that a row of 9 values (a 3x3 RGB window) costs 2 words and a quarter, not 3. The leftover
 * values' list is padded to whole 4s with offset 0 (its weights are zero: any value there adds
 * nothing). One flat list per call for the band, one for the input, the same for every window,
 * made at compile time (p->zrow: lower/fast_gemm.py narrow_reads, in narrow_order's order): the
 * per-pixel loop has no row loop. */
typedef struct {
    const int32_t *word, *quads; /* whole words' offsets; the end of those four a turn, */
    const int32_t *pairs;        /* then of two */
    const int32_t *byte, *end;   /* the rows' leftover values' offsets (whole 4s); their end */
} mf_narrow_reads;

/* Four leftover values of a window (its first tap x, their offsets o) packed into a word. */
MF_INLINE uint32_t mf_narrow_pack(const int8_t *x, const int32_t *o)
{
    return (uint32_t)(uint8_t)x[o[0]] | (uint32_t)(uint8_t)x[o[1]] << 8 | (uint32_t)(uint8_t)x[o[2]] << 16
           | (uint32_t)(uint8_t)x[o[3]] << 24;
}

/* Both pixels' windows (xa, xb: their first taps) sign-extended into the pair
 * buffer in mf_narrow_reads' order: the whole words four a turn (a loop's test per 16 values),
 * then two, then one. */
MF_INLINE uint32_t *mf_narrow_widen(const mf_narrow_reads *r, const int8_t *xa, const int8_t *xb, uint32_t *wide)
{
    const int32_t *o = r->word;
    for (; o != r->quads; o += 4) { /* (mf_pair_group: A's and B's 4 values, the next group) */
        wide = mf_pair_group(mf_load32(xa + o[0]), mf_load32(xb + o[0]), wide);
        wide = mf_pair_group(mf_load32(xa + o[1]), mf_load32(xb + o[1]), wide);
        wide = mf_pair_group(mf_load32(xa + o[2]), mf_load32(xb + o[2]), wide);
        wide = mf_pair_group(mf_load32(xa + o[3]), mf_load32(xb + o[3]), wide);
    }
    if (o != r->pairs) {
        wide = mf_pair_group(mf_load32(xa + o[0]), mf_load32(xb + o[0]), wide);
        wide = mf_pair_group(mf_load32(xa + o[1]), mf_load32(xb + o[1]), wide);
        o += 2;
    }
    if (o != r->byte) { /* an odd word */
        wide = mf_pair_group(mf_load32(xa + o[0]), mf_load32(xb + o[0]), wide);
    }
    for (o = r->byte; o != r->end; o += 4) {
        wide = mf_pair_group(mf_narrow_pack(xa, o), mf_narrow_pack(xb, o), wide);
    }
    return wide; /* (the window's end: p->depth words widened, narrow_depth) */
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

/* One call's blocks on the widened pair (its pixels: 1 or 2, the first's output at out, the
 * second's os bytes on) through the stage (its pixels ctx->delta bytes apart), clamped. */
MF_INLINE void mf_narrow_blocks(mf_pair_ctx *ctx, const mf_conv2d_s8_gemm_params *p, int8_t *out, int32_t os,
                                int pixels)
{
    mf_pair_blocks(ctx);
    mf_narrow_store(ctx->sta, p, out);
    if (pixels > 1) {
        mf_narrow_store(ctx->sta + ctx->delta, p, out + os);
    }
}

/* The pairs widened ahead into the buffers from ctx->wide up to `to`, fewer than a full run
 * (each run->xb bytes on, the first pair's output at *out): through one mf_pair_run, a run (no
 * call per pair) of more than one; *out on past them (each pair 2 out_step bytes on). At most
 * twice a call (before a lone last pixel, at its end): their count by a division, and run->ends
 * moved (a full run's, fixed per call, is not needed after these). */
MF_INLINE void mf_narrow_rest(mf_pair_ctx *ctx, mf_pair_next *run, const uint32_t *to, int8_t **out,
                              int32_t out_step)
{
#if MF_PAIR_BUFS
    const int32_t used = (int32_t)((to - ctx->wide) / (run->xb / 4));
#else
    const int32_t used = 1; /* (a build without runs widened ahead: one buffer) */
#endif
    ctx->sta = *out;
    run->ends = to - run->xb / 4;
    mf_pair_run(ctx, used > 1 ? run : NULL);
    *out += 2 * used * out_step;
}

void mf_conv2d_s8_narrow(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int8_t *output)
{
    const int32_t total = p->batches * p->out_h * p->out_w, out_c = p->out_c, c = p->in_c;
    const int32_t step = p->reverse ? -1 : 1, q0 = p->reverse ? total - 1 : 0;
    const int32_t bw = (p->out_w - 1) * p->stride_w + p->k_w; /* a band row's pixels */
    const int32_t whole = p->k_w * c & ~3, rest = p->k_w * c - whole;
    /* in the run's order: from a pixel's first tap to the next's, a row's first pixel's */
    const int32_t dx = step * p->stride_w * c, first = step > 0 ? 0 : (p->out_w - 1) * p->stride_w * c;
    /* No clamp, whole blocks: the blocks store straight into the output; else through the stage.
     * B's distance from A, when paired: */
    const int direct = !p->clamp && out_c % 4 == 0;
    uint32_t wide[MF_NARROW_WIDE];
#if MF_NARROW_STAGED
    uint32_t stage[2][MF_PAIR_OUT_MAX / 4];
    const int32_t delta = direct ? step * out_c : (int32_t)sizeof stage[0];
#else
    const int32_t delta = step * out_c; /* (no stage on the stack: every call stores straight) */
#endif
    /* the buffers that a call storing straight widens its pairs into ahead (p->depth words each;
     * one in a build without such runs, MF_PAIR_BUFS), the next one, the first pair's output */
    const int32_t bufs = MF_PAIR_BUFS && direct ? MF_NARROW_WIDE / p->depth : 1;
    uint32_t *const full = wide + bufs * p->depth;
    uint32_t *next = wide;
    int8_t *pend = output + q0 * out_c;
    /* a full run's: the run (NULL: one pair), its pairs' output bytes (no count per run) */
    mf_pair_next run, *const many = bufs > 1 ? &run : NULL;
    const int32_t span = 2 * bufs * step * out_c;
    uint32_t bands[MF_NARROW_BANDS][MF_NARROW_BAND / 4];
    int32_t tags[2] = {-1, -1};
    /* the columns whose windows lie inside the image horizontally, lo .. hi (none: hi < lo) */
    const int32_t lo = (p->pad_w + p->stride_w - 1) / p->stride_w, room = p->in_w - p->k_w + p->pad_w;
    const int32_t hi = room < 0 ? -1 : MF_MIN(room / p->stride_w, p->out_w - 1);
    mf_narrow_reads reads[2]; /* the windows in the band, in the input */
    mf_narrow_row w = {0, 0}; /* the current row's */
    mf_narrow_reads r;        /* the current pairs' */
    mf_pair_ctx ctx;
    int32_t k, j, n, q = q0;
    int32_t row = q / p->out_w, left = 0; /* the next band's output row; pixels left in the row */
    int32_t at = 0;                       /* the next pixel's first tap in the current band */
    const int8_t *band = NULL;            /* the current row's band */
    for (j = 0; j < 2; j++) { /* (the lists one after the other in zrow) */
        const int32_t words = p->k_h * (whole / 4), bytes = (p->k_h * rest + 3) & ~3;
        reads[j].word = p->zrow + j * (words + bytes);
        reads[j].quads = reads[j].word + (words & ~3), reads[j].pairs = reads[j].word + (words & ~1);
        reads[j].byte = reads[j].word + words, reads[j].end = reads[j].byte + bytes;
    }
    ctx.wide = wide;
    ctx.end = wide + p->depth;
    ctx.lshift = p->lshift;
    ctx.w = (const uint32_t *)(const void *)p->weights;
    run.x = run.last = NULL, run.xb = 4 * p->depth; /* (widened ahead) */
    run.w = ctx.w, run.sstep = 2 * step * out_c - out_c, run.ends = full - p->depth;
#if MF_NARROW_STAGED
    ctx.sta = (int8_t *)stage[0];
#endif
    ctx.delta = delta;
    for (k = total; k > 0; k -= 2 * n) { /* k: pixels left */
        /* n pairs from here: pixel q first, then its partner q + step, in the run's order */
        const mf_narrow_reads *list = &reads[0];
        const int8_t *xa, *xb;
        if (left == 0) { /* a new row: where its windows lie, its band */
            mf_narrow_at(p, row, lo, hi, &w);
            band = mf_narrow_rows(p, input, row, bw, bands, tags, band, &w, lo, hi);
            at = first, row += step, left = p->out_w;
        }
        if (k > 1 && left > 1) { /* pairs within the current row */
            const int32_t ox = step > 0 ? p->out_w - left : left - 1; /* A's column */
            const int32_t inner = step > 0 ? hi - ox + 1 : ox - lo + 1; /* from it: columns inside */
            if (w.inner && ox >= lo && ox <= hi && inner > 1) { /* a run straight from the input */
                n = MF_MIN(MF_MIN(k, left), inner) / 2;
                xa = input + (w.at + ox * p->stride_w * c), list = &reads[1];
            } else { /* a pair over the border: from the band */
                n = 1;
                xa = band + at;
            }
            xb = xa + dx, at += 2 * n * dx, left -= 2 * n;
        } else { /* one pair: B in the next row (whose band must then keep A's), or a lone last
                  * pixel (widened twice, B unused) */
            n = 1;
            xa = xb = band + at, at += dx, left--;
            if (k > 1) {
                mf_narrow_at(p, row, lo, hi, &w);
                band = mf_narrow_rows(p, input, row, bw, bands, tags, band, &w, lo, hi);
                at = first, row += step, left = p->out_w;
                xb = band + at, at += dx, left--;
            } else { /* (the pairs widened before it run first) */
                if (next != wide) {
                    mf_narrow_rest(&ctx, &run, next, &pend, step * out_c);
                    next = wide;
                }
                ctx.delta = 0;
            }
        }
        r = *list; /* (in registers, not reloaded per pair after the loop's stores) */
#if MF_NARROW_STAGED
        if (!direct) {
            int8_t *out = output + q * out_c;
            for (j = n; j > 0; j--, xa += 2 * dx, xb += 2 * dx, out += 2 * step * out_c) {
                mf_narrow_widen(&r, xa, xb, wide);
                mf_narrow_blocks(&ctx, p, out, step * out_c, k > 1 ? 2 : 1);
            }
            q += 2 * n * step;
            continue;
        }
#endif
        for (j = n; j > 0; j--, xa += 2 * dx, xb += 2 * dx) { /* (its own loop: the test above, once) */
            next = mf_narrow_widen(&r, xa, xb, next);
            if (next == full) { /* a full run of them */
                ctx.sta = pend;
                mf_pair_run(&ctx, many);
                pend += span, next = wide;
            }
        }
        q += 2 * n * step;
    }
    if (next != wide) { /* (and a lone last pixel alone) */
        mf_narrow_rest(&ctx, &run, next, &pend, step * out_c);
    }
}
