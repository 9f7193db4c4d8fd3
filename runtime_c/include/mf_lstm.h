/* microfuse runtime: UNIDIRECTIONAL_SEQUENCE_LSTM as TFLite Micro's standard LSTM computes it
 * (no CIFG, peephole, projection or layer norm: TFLM refuses them too).
 *
 * Per batch row and time step, with h and c the state carried between steps and invokes:
 *   gate g = act_g(FC_g(x) + FC_g(h)): sigmoid for forget, input and output, tanh for cell
 *   c = f * c + i * g_cell   (clipped when cell_clip > 0)
 *   h = o * tanh(c); the output row is a copy of h.
 * int8: x and h int8, c int16 (scale 2^cell_power); each FC gives int16 at scale 2^-12 (its
 * input offset folded into its bias at compile time), the gates are int16 at 2^-15 (TFLM's
 * table sigmoid/tanh), the products are TFLM's int16 MUL. Scratch: 5 rows of n_cell cells.
 * int16 (TFLM's 16x8 LSTM): x and h int16, int64 biases and accumulators (TFLM's int64
 * MultiplyByQuantizedMultiplier), the rest as int8. */
#ifndef MF_LSTM_H
#define MF_LSTM_H

#include "mf_common.h"

/* One gate's two FCs: weights [n_cell][n_input] and [n_cell][n_cell], biases (int32; int64 for
 * int16 activations) with the input offsets folded in, one (multiplier, shift) each. */
typedef struct {
    const int8_t *w_in;
    const int8_t *w_rec;
    const void *b_in;
    const void *b_rec;
    int32_t m_in, s_in, m_rec, s_rec;
} mf_lstm_gate_s8;

typedef struct {
    int32_t batches, steps, n_input, n_cell, time_major;
    mf_lstm_gate_s8 forget_gate;
    mf_lstm_gate_s8 input_gate;
    mf_lstm_gate_s8 cell_gate;
    mf_lstm_gate_s8 output_gate;
    int32_t fc_mult, fc_shift; /* forget gate x cell state -> cell state */
    int32_t ic_mult, ic_shift; /* input gate x cell gate -> cell state */
    int32_t oh_mult, oh_shift, hidden_zp; /* output gate x tanh(cell) -> hidden */
    int32_t cell_clip; /* -1: none (TFLM clips whenever the option is > 0, even to 0) */
    int32_t tanh_mult, tanh_shift; /* tanh of the cell state: input * mult >> shift (rounded) */
    const uint16_t *sigmoid_table; /* sigmoid(i / 24) in 0.16, i = 0..255 */
} mf_lstm_s8_params;

typedef struct {
    const float *w_in;
    const float *w_rec;
    const float *b_in;
} mf_lstm_gate_f32;

typedef struct {
    int32_t batches, steps, n_input, n_cell, time_major;
    mf_lstm_gate_f32 forget_gate;
    mf_lstm_gate_f32 input_gate;
    mf_lstm_gate_f32 cell_gate;
    mf_lstm_gate_f32 output_gate;
    float cell_clip; /* 0: none */
} mf_lstm_f32_params;

void mf_lstm_s8(const mf_lstm_s8_params *p, const int8_t *input, int8_t *output, int8_t *hidden,
                int16_t *cell, void *scratch);
void mf_lstm_s16(const mf_lstm_s8_params *p, const int16_t *input, int16_t *output, int16_t *hidden,
                 int16_t *cell, void *scratch);
void mf_lstm_f32(const mf_lstm_f32_params *p, const float *input, float *output, float *hidden,
                 float *cell, void *scratch);

#endif /* MF_LSTM_H */
