/* UNIDIRECTIONAL_SEQUENCE_LSTM, int8 or int16 activations, int16 cell state (see mf_lstm.h). One
 * body, always inlined with `wide` (int16 activations) constant in each entry point. */
#include <string.h>

#include "mf_lstm.h"

static int16_t mf_sat16(int32_t x)
{
    return (int16_t)MF_CLAMP(x, -32768, 32767);
}

/* TFLM's MultiplyByQuantizedMultiplier of an int64 accumulator (16x8 layers): the multiplier
 * rounded to 16 bits, one rounding shift. */
static int32_t mf_requantize64(int64_t x, int32_t mult, int32_t shift)
{
    const int64_t reduced = mult < 0x7FFF0000 ? (mult + (1 << 15)) >> 16 : 0x7FFF;
    const int total = 15 - shift;
    return (int32_t)((x * reduced + ((int64_t)1 << (total - 1))) >> total);
}

/* TFLM's FULLY_CONNECTED to int16: bias + sum w x, requantized, clamped to int16; int8 input with
 * int32 bias and accumulator, or (wide) int16 input with int64 ones. */
MF_INLINE void mf_lstm_fc(const int8_t *w, const void *bias, int32_t mult, int32_t shift, const void *x,
                          int32_t depth, int32_t units, int16_t *out, int wide)
{
    int32_t u, k;
    for (u = 0; u < units; ++u) {
        const int8_t *row = w + u * depth;
        if (wide) {
            const int16_t *xs = (const int16_t *)x;
            int64_t acc = ((const int64_t *)bias)[u];
            for (k = 0; k < depth; ++k) {
                acc += (int32_t)row[k] * (int32_t)xs[k];
            }
            out[u] = mf_sat16(mf_requantize64(acc, mult, shift));
        } else {
            const int8_t *xs = (const int8_t *)x;
            int32_t acc = ((const int32_t *)bias)[u];
            for (k = 0; k < depth; ++k) {
                acc += (int32_t)row[k] * (int32_t)xs[k];
            }
            out[u] = mf_sat16(mf_requantize(acc, mult, shift));
        }
    }
}

/* TFLM's int16 logistic at input scale 2^-12 (input multiplier 3, no shift): the table
 * interpolated on |3x| in steps of 2^9, mirrored for negative inputs; output at 2^-15. */
static int16_t mf_lstm_sigmoid(const uint16_t *table, int32_t x)
{
    const int32_t v = x * 3;
    const uint32_t a = (uint32_t)(v < 0 ? -v : v);
    const uint32_t uh = a >> 9;
    uint32_t r;
    if (uh >= 255) {
        r = 0x7FFFu << 10;
    } else {
        const uint32_t ua = table[uh], ub = table[uh + 1];
        r = (ua << 9) + (a & 0x1FFu) * (ub - ua);
    }
    r = v >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1;
    return (int16_t)(r >> 10);
}

/* TFLM's int16 tanh: input * mult >> shift (rounded), the same table in steps of 2^8,
 * tanh(x) = 2 sigmoid(2x) - 1; output at 2^-15. */
static int16_t mf_lstm_tanh(const uint16_t *table, int32_t x, int32_t mult, int32_t shift)
{
    const int32_t rnd = shift > 0 ? 1 << (shift - 1) : 0;
    const int32_t v = (x * mult + rnd) >> shift;
    const uint32_t a = (uint32_t)(v < 0 ? -v : v);
    const uint32_t uh = a >> 8;
    int32_t r;
    if (uh >= 255) {
        r = 0xFFFF << 8;
    } else {
        const uint32_t ua = table[uh], ub = table[uh + 1];
        r = (int32_t)((ua << 8) + (a & 0xFFu) * (ub - ua));
    }
    r = v >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
    return (int16_t)(r >> 8);
}

/* TFLM's int16 x int16 MUL (symmetric inputs), requantized, offset and clamped. */
static int32_t mf_lstm_mul(int32_t a, int32_t b, int32_t mult, int32_t shift, int32_t zp, int32_t lo, int32_t hi)
{
    const int32_t v = zp + mf_requantize(a * b, mult, shift);
    return MF_CLAMP(v, lo, hi);
}

/* One gate of one row: the two FCs, their saturating sum, the activation. */
MF_INLINE void mf_lstm_gate(const mf_lstm_s8_params *p, const mf_lstm_gate_s8 *g, const void *x, const void *h,
                            int sigmoid, int16_t *out, int16_t *tmp, int wide)
{
    int32_t s;
    mf_lstm_fc(g->w_in, g->b_in, g->m_in, g->s_in, x, p->n_input, p->n_cell, out, wide);
    mf_lstm_fc(g->w_rec, g->b_rec, g->m_rec, g->s_rec, h, p->n_cell, p->n_cell, tmp, wide);
    for (s = 0; s < p->n_cell; ++s) {
        const int32_t v = mf_sat16((int32_t)out[s] + (int32_t)tmp[s]);
        out[s] = sigmoid ? mf_lstm_sigmoid(p->sigmoid_table, v) : mf_lstm_tanh(p->sigmoid_table, v, 3, 0);
    }
}

/* One time step of batch row b: the gates from the old h, then c, then h and the output row. */
MF_INLINE void mf_lstm_step(const mf_lstm_s8_params *p, const void *x, void *h, int16_t *c, void *out,
                            int16_t *buf, int wide)
{
    const int32_t n = p->n_cell, lo = wide ? -32768 : -128, hi = wide ? 32767 : 127;
    int16_t *f = buf, *in = buf + n, *g = buf + 2 * n, *o = buf + 3 * n, *tmp = buf + 4 * n;
    int32_t s;
    mf_lstm_gate(p, &p->forget_gate, x, h, 1, f, tmp, wide);
    mf_lstm_gate(p, &p->input_gate, x, h, 1, in, tmp, wide);
    mf_lstm_gate(p, &p->cell_gate, x, h, 0, g, tmp, wide);
    for (s = 0; s < n; ++s) {
        const int32_t kept = mf_lstm_mul(f[s], c[s], p->fc_mult, p->fc_shift, 0, -32768, 32767);
        const int32_t added = mf_lstm_mul(in[s], g[s], p->ic_mult, p->ic_shift, 0, -32768, 32767);
        int32_t v = mf_sat16(kept + added);
        if (p->cell_clip >= 0) {
            v = MF_CLAMP(v, -p->cell_clip, p->cell_clip);
        }
        c[s] = (int16_t)v;
    }
    mf_lstm_gate(p, &p->output_gate, x, h, 1, o, tmp, wide);
    for (s = 0; s < n; ++s) {
        const int32_t t = mf_lstm_tanh(p->sigmoid_table, c[s], p->tanh_mult, p->tanh_shift);
        const int32_t v = mf_lstm_mul(t, o[s], p->oh_mult, p->oh_shift, p->hidden_zp, lo, hi);
        if (wide) {
            ((int16_t *)h)[s] = (int16_t)v;
        } else {
            ((int8_t *)h)[s] = (int8_t)v;
        }
    }
    memcpy(out, h, (size_t)n * (wide ? 2u : 1u));
}

MF_INLINE void mf_lstm_run(const mf_lstm_s8_params *p, const void *input, void *output, void *hidden,
                           int16_t *cell, void *scratch, int wide)
{
    const int32_t size = wide ? 2 : 1;
    int32_t b, t;
    for (b = 0; b < p->batches; ++b) {
        for (t = 0; t < p->steps; ++t) {
            /* rows are independent: TFLM's batch-at-once time-major loop gives the same values */
            const int32_t row = p->time_major ? t * p->batches + b : b * p->steps + t;
            mf_lstm_step(p, (const char *)input + row * p->n_input * size, (char *)hidden + b * p->n_cell * size,
                         cell + b * p->n_cell, (char *)output + row * p->n_cell * size, (int16_t *)scratch, wide);
        }
    }
}

void mf_lstm_s8(const mf_lstm_s8_params *p, const int8_t *input, int8_t *output, int8_t *hidden,
                int16_t *cell, void *scratch)
{
    mf_lstm_run(p, input, output, hidden, cell, scratch, 0);
}

void mf_lstm_s16(const mf_lstm_s8_params *p, const int16_t *input, int16_t *output, int16_t *hidden,
                 int16_t *cell, void *scratch)
{
    mf_lstm_run(p, input, output, hidden, cell, scratch, 1);
}
