/* microfuse runtime: TFLM's signal-library custom ops (mf_signal.h). Each element-wise kernel
 * writes element i after reading element i of its inputs, in increasing i. */
#include "mf_signal.h"

/* TFLM's MostSignificantBit32 as its GCC build computes it: 32 for x == 0. */
static int32_t mf_msb32(uint32_t x)
{
    int32_t n = 0;
    if (x == 0) {
        return 32;
    }
    while (x) {
        x >>= 1;
        ++n;
    }
    return n;
}

static int32_t mf_msb64(uint64_t x)
{
    int32_t n = 0;
    if (x == 0) {
        return 64;
    }
    while (x) {
        x >>= 1;
        ++n;
    }
    return n;
}

void mf_signal_window_s16(const mf_signal_window_params *p, const int16_t *in, int16_t *out)
{
    int32_t i, k = 0;
    for (i = 0; i < p->size; ++i) {
        const int32_t raw = ((int32_t)in[i] * p->window[k]) >> p->shift;
        out[i] = (int16_t)(raw < -32768 ? -32768 : (raw > 32767 ? 32767 : raw));
        k = k + 1 == p->window_size ? 0 : k + 1;
    }
}

void mf_signal_fft_auto_scale_s16(const mf_signal_fft_auto_scale_params *p, const int16_t *in, int16_t *out,
                                  int32_t *scale_bits)
{
    int16_t max = 0; /* TFLM's MaxAbs16: -(-32768) wraps to -32768, and later values compare with it */
    int32_t i, bits;
    for (i = 0; i < p->size; ++i) {
        const int16_t v = in[i];
        if (v > max) {
            max = v;
        } else if (-v > max) {
            max = (int16_t)(-v);
        }
    }
    bits = 16 - mf_msb32((uint32_t)(int32_t)max) - 1;
    bits = bits < 0 ? 0 : bits;
    for (i = 0; i < p->size; ++i) {
        out[i] = (int16_t)(uint16_t)((uint32_t)(int32_t)in[i] << bits);
    }
    *scale_bits = bits;
}

void mf_signal_energy_s16(const mf_signal_energy_params *p, const int16_t *in, uint32_t *out)
{
    int32_t i;
    for (i = 0; i < p->bins; ++i) {
        const int32_t re = in[2 * i], im = in[2 * i + 1];
        out[i] = i >= p->start && i < p->end ? (uint32_t)(re * re) + (uint32_t)(im * im) : 0u;
    }
}

void mf_signal_filter_bank_u32(const mf_signal_filter_bank_params *p, const uint32_t *in, uint64_t *out)
{
    uint64_t weighted = 0, unweighted = 0;
    int32_t c, j;
    for (c = 0; c <= p->channels; ++c) {
        const uint32_t *x = in + p->freq_starts[c];
        const int16_t *w = p->weights + p->weight_starts[c], *u = p->unweights + p->weight_starts[c];
        for (j = 0; j < p->widths[c]; ++j) { /* int16 weights widen to uint64 (negative ones wrap) */
            weighted += (uint64_t)(int64_t)w[j] * x[j];
            unweighted += (uint64_t)(int64_t)u[j] * x[j];
        }
        if (c > 0) {
            out[c - 1] = weighted;
        }
        weighted = unweighted;
        unweighted = 0;
    }
}

static uint16_t mf_sqrt32(uint32_t num)
{
    uint32_t res = 0, bit;
    int32_t top, iterations;
    if (num == 0) {
        return 0;
    }
    top = (32 - mf_msb32(num)) | 1;
    bit = (uint32_t)1 << (31 - top);
    for (iterations = (31 - top) / 2 + 1; iterations > 0; --iterations) {
        if (num >= res + bit) {
            num -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if (num > res && res != 0xFFFFu) {
        ++res;
    }
    return (uint16_t)res;
}

static uint32_t mf_sqrt64(uint64_t num)
{
    uint64_t res = 0, bit;
    int32_t top, iterations;
    if ((num >> 32) == 0) { /* TFLM's 32-bit shortcut, off by one near 2^32 as there */
        return mf_sqrt32((uint32_t)num);
    }
    top = (64 - mf_msb64(num)) | 1;
    bit = (uint64_t)1 << (63 - top);
    for (iterations = (63 - top) / 2 + 1; iterations > 0; --iterations) {
        if (num >= res + bit) {
            num -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if (num > res && res != 0xFFFFFFFFu) {
        ++res;
    }
    return (uint32_t)res;
}

void mf_signal_filter_bank_sqrt_u64(const mf_signal_filter_bank_sqrt_params *p, const uint64_t *in,
                                    const int32_t *scale_bits, uint32_t *out)
{
    const int32_t shift = *scale_bits;
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const uint32_t root = mf_sqrt64(in[i]);
        out[i] = shift >= 0 && shift < 32 ? root >> shift : 0u;
    }
}

/* TFLM's WideDynamicFunction: a piecewise quadratic in the noise estimate's octave. */
static int16_t mf_pcan_gain(uint32_t x, const int16_t *lut)
{
    int32_t interval, frac;
    uint32_t r;
    if (x <= 2) {
        return lut[x];
    }
    interval = mf_msb32(x);
    lut += 4 * interval - 6;
    frac = (int32_t)((interval < 11 ? x << (11 - interval) : x >> (interval - 11)) & 0x3FFu);
    r = (uint32_t)(((int32_t)lut[2] * frac) >> 5);
    r += (uint32_t)(int32_t)lut[1] << 5;
    r *= (uint32_t)frac; /* int32 in TFLM: the same bits modulo 2^32 */
    r = (uint32_t)((int32_t)(r + (1u << 14)) >> 15) + (uint32_t)(int32_t)lut[0];
    return (int16_t)(uint16_t)r;
}

void mf_signal_pcan_u32(const mf_signal_pcan_params *p, const uint32_t *in, const uint32_t *noise,
                        uint32_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const uint32_t gain = (uint32_t)(int32_t)mf_pcan_gain(noise[i], p->gain_lut);
        const uint32_t snr = (uint32_t)(((uint64_t)in[i] * gain) >> p->snr_shift);
        /* PcanShrink with 12 SNR bits and 6 output bits: x^2 / 4 below 2, x - 1 above */
        out[i] = snr < (2u << 12) ? (snr * snr) >> 20 : (snr >> 6) - (1u << 6);
    }
}

static const uint16_t mf_log_lut[130] = {
    0,    224,  442,  654,  861,  1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646, 2797,
    2944, 3087, 3224, 3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460, 4549, 4633,
    4714, 4791, 4864, 4934, 5001, 5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444, 5477, 5507,
    5533, 5557, 5578, 5595, 5610, 5622, 5631, 5637, 5640, 5641, 5638, 5633, 5626, 5615, 5602, 5586,
    5568, 5547, 5524, 5498, 5470, 5439, 5406, 5370, 5332, 5291, 5249, 5203, 5156, 5106, 5054, 5000,
    4944, 4885, 4825, 4762, 4697, 4630, 4561, 4490, 4416, 4341, 4264, 4184, 4103, 4020, 3935, 3848,
    3759, 3668, 3575, 3481, 3384, 3286, 3186, 3084, 2981, 2875, 2768, 2659, 2549, 2437, 2323, 2207,
    2090, 1971, 1851, 1729, 1605, 1480, 1353, 1224, 1094, 963,  830,  695,  559,  421,  282,  142,
    0,    0};

/* TFLM's Log32: log2 from the leading bit and a 128-segment correction table, then to ln
 * (x 45426 / 2^16) and to the output scale, each rounded. */
static uint32_t mf_log32(uint32_t x, uint32_t out_scale)
{
    const int32_t integer = mf_msb32(x) - 1;
    int32_t frac = (int32_t)(uint32_t)(x - ((uint32_t)1 << integer)), c0, c1, rel;
    uint32_t seg, log2, loge;
    frac = integer < 16 ? (int32_t)((uint32_t)frac << (16 - integer)) : frac >> (integer - 16);
    seg = (uint32_t)frac >> 9;
    c0 = mf_log_lut[seg];
    c1 = mf_log_lut[seg + 1];
    rel = ((c1 - c0) * (frac - (int32_t)(512u * seg))) >> 16;
    log2 = ((uint32_t)integer << 16) + (uint32_t)(frac + c0 + rel);
    loge = (uint32_t)(((uint64_t)45426u * log2 + 32768u) >> 16);
    return (out_scale * loge + 32768u) >> 16;
}

void mf_signal_filter_bank_log_u32(const mf_signal_filter_bank_log_params *p, const uint32_t *in, int16_t *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const uint32_t scaled = in[i] << p->correction_bits;
        const uint32_t value = scaled > 1 ? mf_log32(scaled, p->output_scale) : 0u;
        out[i] = (int16_t)(value < 32767u ? value : 32767u);
    }
}

/* -- SignalRfft: kissfft's fixed-point arithmetic on (re, im) int16 pairs -------------------- */

static int16_t mf_kf_round(int32_t x) /* kissfft's sround: Q15 product back to int16 */
{
    return (int16_t)((x + (1 << 14)) >> 15);
}

static void mf_kf_div(int16_t *c, int32_t radix) /* C_FIXDIV: times (32767 / radix) in Q15 */
{
    const int32_t k = 32767 / radix;
    c[0] = mf_kf_round(c[0] * k);
    c[1] = mf_kf_round(c[1] * k);
}

static void mf_kf_mul(int16_t *m, const int16_t *a, const int16_t *b)
{
    const int32_t re = (int32_t)a[0] * b[0] - (int32_t)a[1] * b[1];
    const int32_t im = (int32_t)a[0] * b[1] + (int32_t)a[1] * b[0];
    m[0] = mf_kf_round(re);
    m[1] = mf_kf_round(im);
}

static void mf_kf_bfly2(int16_t *out, int32_t fstride, const int16_t *tw, int32_t m)
{
    int32_t k;
    for (k = 0; k < m; ++k) {
        int16_t *a = out + 2 * k, *b = out + 2 * (k + m), t[2];
        mf_kf_div(a, 2);
        mf_kf_div(b, 2);
        mf_kf_mul(t, b, tw + 2 * k * fstride);
        b[0] = (int16_t)(a[0] - t[0]);
        b[1] = (int16_t)(a[1] - t[1]);
        a[0] = (int16_t)(a[0] + t[0]);
        a[1] = (int16_t)(a[1] + t[1]);
    }
}

static void mf_kf_bfly4(int16_t *out, int32_t fstride, const int16_t *tw, int32_t m)
{
    int32_t k, j;
    for (k = 0; k < m; ++k) {
        int16_t *f[4], s0[2], s1[2], s2[2], s3[2], s4[2], s5[2];
        for (j = 0; j < 4; ++j) {
            f[j] = out + 2 * (k + j * m);
            mf_kf_div(f[j], 4);
        }
        mf_kf_mul(s0, f[1], tw + 2 * k * fstride);
        mf_kf_mul(s1, f[2], tw + 4 * k * fstride);
        mf_kf_mul(s2, f[3], tw + 6 * k * fstride);
        for (j = 0; j < 2; ++j) {
            s5[j] = (int16_t)(f[0][j] - s1[j]);
            f[0][j] = (int16_t)(f[0][j] + s1[j]);
            s3[j] = (int16_t)(s0[j] + s2[j]);
            s4[j] = (int16_t)(s0[j] - s2[j]);
            f[2][j] = (int16_t)(f[0][j] - s3[j]);
            f[0][j] = (int16_t)(f[0][j] + s3[j]);
        }
        f[1][0] = (int16_t)(s5[0] + s4[1]);
        f[1][1] = (int16_t)(s5[1] - s4[0]);
        f[3][0] = (int16_t)(s5[0] - s4[1]);
        f[3][1] = (int16_t)(s5[1] + s4[0]);
    }
}

/* kissfft's kf_work without its recursion (the stack bound needs none): the digit-reversed copy
 * its leaves make, then every stage's butterflies, deepest first. Stage s has radix factors[2s],
 * blocks of factors[2s + 1] and twiddle stride the product of the radices before it; the blocks of
 * one stage are disjoint, so running them stage by stage equals kissfft's depth-first order. */
static void mf_kf_work(int16_t *out, const int16_t *f, int32_t n, const int32_t *factors, const int16_t *tw)
{
    int32_t stages = 0, s, j, b, stride[32];
    for (stride[0] = 1; factors[2 * stages + 1] != 1; ++stages) {
        stride[stages + 1] = stride[stages] * factors[2 * stages];
    }
    ++stages;
    for (j = 0; j < n; ++j) {
        int32_t rest = j, from = 0;
        for (s = 0; s < stages; ++s) {
            from += rest / factors[2 * s + 1] * stride[s];
            rest %= factors[2 * s + 1];
        }
        out[2 * j] = f[2 * from];
        out[2 * j + 1] = f[2 * from + 1];
    }
    for (s = stages - 1; s >= 0; --s) {
        const int32_t p = factors[2 * s], m = factors[2 * s + 1];
        for (b = 0; b < n; b += p * m) {
            if (p == 2) {
                mf_kf_bfly2(out + 2 * b, stride[s], tw, m);
            } else {
                mf_kf_bfly4(out + 2 * b, stride[s], tw, m);
            }
        }
    }
}

void mf_signal_rfft_s16(const mf_signal_rfft_params *p, const int16_t *in, int16_t *out, void *scratch)
{
    int16_t *frame = (int16_t *)scratch, *c = frame + p->fft_length;
    const int32_t half = p->fft_length / 2;
    int32_t n, i, k;
    for (n = 0; n < p->frames; ++n, in += p->input_length, out += 2 * (half + 1)) {
        for (i = 0; i < p->fft_length; ++i) {
            frame[i] = i < p->input_length ? in[i] : 0;
        }
        mf_kf_work(c, frame, half, p->factors, p->twiddles); /* half complex points */
        {
            int16_t dc[2];
            dc[0] = c[0];
            dc[1] = c[1];
            mf_kf_div(dc, 2);
            out[0] = (int16_t)(dc[0] + dc[1]);
            out[2 * half] = (int16_t)(dc[0] - dc[1]);
            out[1] = out[2 * half + 1] = 0;
        }
        for (k = 1; k <= half / 2; ++k) {
            int16_t fk[2], fnk[2], f1[2], f2[2], t[2];
            fk[0] = c[2 * k];
            fk[1] = c[2 * k + 1];
            fnk[0] = c[2 * (half - k)];
            fnk[1] = (int16_t)(-c[2 * (half - k) + 1]);
            mf_kf_div(fk, 2);
            mf_kf_div(fnk, 2);
            f1[0] = (int16_t)(fk[0] + fnk[0]);
            f1[1] = (int16_t)(fk[1] + fnk[1]);
            f2[0] = (int16_t)(fk[0] - fnk[0]);
            f2[1] = (int16_t)(fk[1] - fnk[1]);
            mf_kf_mul(t, f2, p->super_twiddles + 2 * (k - 1));
            out[2 * k] = (int16_t)((f1[0] + t[0]) >> 1);
            out[2 * k + 1] = (int16_t)((f1[1] + t[1]) >> 1);
            out[2 * (half - k)] = (int16_t)((f1[0] - t[0]) >> 1);
            out[2 * (half - k) + 1] = (int16_t)((t[1] - f1[1]) >> 1);
        }
    }
}
