/* FULLY_CONNECTED int8 with dual MACs: per input row, the row is extended once to int16 pairs
 * in scratch (depth padded to a multiple of 4 with zeros, whose weights are zero); then two
 * units at a time, each step one 64-bit load of inputs, two of pre-extended weights and four
 * SMLAD (8 MACs). Per-tensor and per-channel weights alike (the channel table repeats a
 * per-tensor multiplier).
 *
 * Access order (the planner's contract for fully-connected): rows in order; a row's input is
 * read completely (into scratch) before any of its outputs is written; outputs of a row in
 * increasing order, so a fused residual is read at index i right before output i is stored.
 *
 * Scratch: depth4 * 2 bytes. */
#ifndef MF_FC_S8_DSP_BODY_H
#define MF_FC_S8_DSP_BODY_H

#include "mf_fast.h"

MF_BODY void mf_fc_s8_dsp_body(const mf_fc_s8_dsp_params *p, const mf_epilogue_s8 *e, int kind,
                               const int8_t *input, const int8_t *res, int8_t *output,
                               void *scratch)
{
    uint32_t *xs = (uint32_t *)scratch;
    const int32_t blocks = p->depth4 / 4;
    const int32_t lo = p->act_min, hi = p->act_max;
    int32_t r, u, k;

    for (r = 0; r < p->rows; r++) {
        const int8_t *x8 = input + r * p->depth;
        int8_t *out = output + r * p->units;
        const uint32_t *w = (const uint32_t *)p->weights;
        const mf_fast_q *q = mf_fast_quant(p->quant);
        for (k = 0; k + 4 <= p->depth; k += 4) {
            mf_extend4(x8 + k, xs + k / 2);
        }
        if (k < p->depth) {
            int8_t tail[4] = {0, 0, 0, 0};
            int32_t t;
            for (t = 0; k + t < p->depth; t++) {
                tail[t] = x8[k + t];
            }
            mf_extend4(tail, xs + k / 2);
        }
        for (u = 0; u < p->units; u += 2, q += 2) {
            int32_t a = q[0].bias, b = q[1].bias, v;
            const uint32_t *x = xs;
#if MF_DSP && defined(__GNUC__)
            if (blocks >= 2) {
                /* Two blocks (16 MACs) per turn: 3 LDRD ... in assembly, so that the
                 * compiler keeps the loop counter and pointers in registers. */
                uint32_t x0, x1, w0, w1;
                int32_t turns = blocks / 2;
                __asm__ volatile(
                    "1:\n\t"
                    "ldrd %[x0], %[x1], [%[x]], #8\n\t"
                    "ldrd %[w0], %[w1], [%[w]], #8\n\t"
                    "smlad %[a], %[x0], %[w0], %[a]\n\t"
                    "smlad %[a], %[x1], %[w1], %[a]\n\t"
                    "ldrd %[w0], %[w1], [%[w]], #8\n\t"
                    "smlad %[b], %[x0], %[w0], %[b]\n\t"
                    "smlad %[b], %[x1], %[w1], %[b]\n\t"
                    "ldrd %[x0], %[x1], [%[x]], #8\n\t"
                    "ldrd %[w0], %[w1], [%[w]], #8\n\t"
                    "smlad %[a], %[x0], %[w0], %[a]\n\t"
                    "smlad %[a], %[x1], %[w1], %[a]\n\t"
                    "ldrd %[w0], %[w1], [%[w]], #8\n\t"
                    "smlad %[b], %[x0], %[w0], %[b]\n\t"
                    "smlad %[b], %[x1], %[w1], %[b]\n\t"
                    "subs %[n], %[n], #1\n\t"
                    "bne 1b\n\t"
                    : [a] "+r"(a), [b] "+r"(b), [x] "+r"(x), [w] "+r"(w), [n] "+r"(turns),
                      [x0] "=&r"(x0), [x1] "=&r"(x1), [w0] "=&r"(w0), [w1] "=&r"(w1)
                    :
                    : "cc", "memory");
            }
            k = blocks % 2;
#else
            for (k = blocks; k >= 2; k -= 2, x += 4, w += 8) {
                const uint32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
                a = mf_smlad(x0, w[0], a);
                a = mf_smlad(x1, w[1], a);
                b = mf_smlad(x0, w[2], b);
                b = mf_smlad(x1, w[3], b);
                a = mf_smlad(x2, w[4], a);
                a = mf_smlad(x3, w[5], a);
                b = mf_smlad(x2, w[6], b);
                b = mf_smlad(x3, w[7], b);
            }
#endif
            if (k) {
                a = mf_smlad(x[0], w[0], a);
                a = mf_smlad(x[1], w[1], a);
                b = mf_smlad(x[0], w[2], b);
                b = mf_smlad(x[1], w[3], b);
                w += 4;
            }
            v = mf_fast_requant(a, q);
            v = MF_CLAMP(v, lo, hi);
            out[u] = mf_ep_s8(e, kind, v, res, r * p->units + u);
            if (u + 1 < p->units) {
                v = mf_fast_requant(b, q + 1);
                v = MF_CLAMP(v, lo, hi);
                out[u + 1] = mf_ep_s8(e, kind, v, res, r * p->units + u + 1);
            }
        }
    }
}

#endif /* MF_FC_S8_DSP_BODY_H */
