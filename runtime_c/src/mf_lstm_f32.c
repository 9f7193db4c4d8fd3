/* UNIDIRECTIONAL_SEQUENCE_LSTM, float32 (see mf_lstm.h). */
#include <math.h>
#include <string.h>

#include "mf_lstm.h"

/* TFLM's float FULLY_CONNECTED: the dot product, then the bias (absent: 0). */
static void mf_lstm_fc_f32(const float *w, const float *bias, const float *x, int32_t depth, int32_t units,
                           float *out)
{
    int32_t u, k;
    for (u = 0; u < units; ++u) {
        float total = 0.0f;
        for (k = 0; k < depth; ++k) {
            total += x[k] * w[u * depth + k];
        }
        out[u] = total + (bias ? bias[u] : 0.0f);
    }
}

/* TFLite's float logistic with its cut-offs. */
static float mf_lstm_sigmoid_f32(float v)
{
    return v > 16.619047164916992188f ? 1.0f : v < -9.0f ? expf(v) : 1.0f / (1.0f + expf(-v));
}

static void mf_lstm_gate_f(const mf_lstm_f32_params *p, const mf_lstm_gate_f32 *g, const float *x,
                           const float *h, int sigmoid, float *out, float *tmp)
{
    int32_t s;
    mf_lstm_fc_f32(g->w_in, g->b_in, x, p->n_input, p->n_cell, out);
    mf_lstm_fc_f32(g->w_rec, NULL, h, p->n_cell, p->n_cell, tmp);
    for (s = 0; s < p->n_cell; ++s) {
        const float v = out[s] + tmp[s];
        out[s] = sigmoid ? mf_lstm_sigmoid_f32(v) : tanhf(v);
    }
}

static void mf_lstm_step_f32(const mf_lstm_f32_params *p, const float *x, float *h, float *c, float *out,
                             float *buf)
{
    const int32_t n = p->n_cell;
    float *f = buf, *in = buf + n, *g = buf + 2 * n, *o = buf + 3 * n, *tmp = buf + 4 * n;
    int32_t s;
    mf_lstm_gate_f(p, &p->forget_gate, x, h, 1, f, tmp);
    mf_lstm_gate_f(p, &p->input_gate, x, h, 1, in, tmp);
    mf_lstm_gate_f(p, &p->cell_gate, x, h, 0, g, tmp);
    for (s = 0; s < n; ++s) {
        float v = f[s] * c[s] + in[s] * g[s];
        if (p->cell_clip > 0.0f) {
            v = v > p->cell_clip ? p->cell_clip : v < -p->cell_clip ? -p->cell_clip : v;
        }
        c[s] = v;
    }
    mf_lstm_gate_f(p, &p->output_gate, x, h, 1, o, tmp);
    for (s = 0; s < n; ++s) {
        h[s] = tanhf(c[s]) * o[s];
    }
    memcpy(out, h, (size_t)n * sizeof(float));
}

void mf_lstm_f32(const mf_lstm_f32_params *p, const float *input, float *output, float *hidden, float *cell,
                 void *scratch)
{
    int32_t b, t;
    for (b = 0; b < p->batches; ++b) {
        for (t = 0; t < p->steps; ++t) {
            const int32_t row = p->time_major ? t * p->batches + b : b * p->steps + t;
            mf_lstm_step_f32(p, input + row * p->n_input, hidden + b * p->n_cell, cell + b * p->n_cell,
                             output + row * p->n_cell, (float *)scratch);
        }
    }
}
