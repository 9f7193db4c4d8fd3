/* FULLY_CONNECTED int8 (per-tensor and per-channel weights; int8 weights in flash; no scratch).
 *
 * Per input row, four units at a time: four accumulators start at their biases and take the dot
 * product of the row with the four units' weights (mf_dot4: per 8 inputs one load pair, SXTB16,
 * and per unit one load pair of weights, SXTB16, 4 SMLAD); a depth that is not a multiple of 4
 * ends with a word assembled from the last bytes (the weights are zero-padded). The channel
 * table repeats a per-tensor multiplier.
 *
 * Access order (the planner's contract for fully-connected): rows in order; a block of four
 * units reads the row, then writes its four outputs, in increasing order; a fused residual is
 * read four elements at a time before they are stored. */
#ifndef MF_FC_S8_DSP_BODY_H
#define MF_FC_S8_DSP_BODY_H

#include <stdint.h>

#include "mf_fast.h"

MF_BODY void mf_fc_s8_dsp_body(const mf_fc_s8_dsp_params *p, const mf_epilogue_s8 *e,
                               const mf_fast_addsub *aq, int kind, const int8_t *input,
                               const int8_t *res, int8_t *output)
{
    const int32_t depth = p->depth, units = p->units;
    const int32_t n8 = depth / 8, n4 = (depth % 8) / 4, tail = depth % 4;
    const int32_t blocks = (units + 3) / 4;
    const int32_t lo = p->act_min, hi = p->act_max;
    int32_t row, b;

    for (row = 0; row < p->rows; row++) {
        const int8_t *x = input + row * depth;
        const int aligned = ((uintptr_t)x & 3u) == 0;
        uint32_t last = 0; /* the last depth % 4 inputs, zero-padded */
        const uint32_t *w = (const uint32_t *)(const void *)p->weights;
        if (tail) {
            int32_t i;
            for (i = 0; i < tail; i++) {
                last |= (uint32_t)(uint8_t)x[depth - tail + i] << (8 * i);
            }
        }
        for (b = 0; b < blocks; b++) {
            const mf_fast_q *q = mf_fast_quant(p->quant) + 4 * b;
            const int32_t first = row * units + 4 * b;
            int32_t acc[4];
            mf_fast_bias4(q, acc);
            mf_dot4(x, &w, n8, n4, aligned, acc);
            if (tail) {
                const uint32_t xe = mf_sxtb16(last), xo = mf_sxtb16_ror8(last);
                acc[0] = mf_smlad(xo, mf_sxtb16_ror8(w[0]), mf_smlad(xe, mf_sxtb16(w[0]), acc[0]));
                acc[1] = mf_smlad(xo, mf_sxtb16_ror8(w[1]), mf_smlad(xe, mf_sxtb16(w[1]), acc[1]));
                acc[2] = mf_smlad(xo, mf_sxtb16_ror8(w[2]), mf_smlad(xe, mf_sxtb16(w[2]), acc[2]));
                acc[3] = mf_smlad(xo, mf_sxtb16_ror8(w[3]), mf_smlad(xe, mf_sxtb16(w[3]), acc[3]));
                w += 4;
            }
            mf_fast_store4(acc[0], acc[1], acc[2], acc[3], q, lo, hi, e, aq, kind, res,
                           output + first, first, MF_MIN(units - 4 * b, 4));
        }
    }
}

#endif /* MF_FC_S8_DSP_BODY_H */
