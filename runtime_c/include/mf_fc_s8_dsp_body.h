/* FULLY_CONNECTED int8 (per-tensor and per-channel weights; int8 weights in flash; no scratch).
 *
 * Per input row, four units at a time: four accumulators start at their biases and take the dot
 * product of the row with the four units' weights (mf_fast_blocks: per 8 inputs one load pair,
 * SXTB16, and per unit one load pair of weights, SXTB16, 4 SMLAD). The row is one segment of
 * 8-value chunks; its last depth % 8 values are copied, zero-padded, into a small stack buffer
 * (a second segment; the weights are zero-padded too). The channel table repeats a per-tensor
 * multiplier.
 *
 * Access order (the planner's contract for fully-connected): rows in order; a row's outputs are
 * written after the row is read (a stage at a time when staged, MF_STAGE_MAX outputs, each
 * stage reading the row again: the row units are unstaged); a fused residual is read in
 * increasing order, each element before its output is stored. */
#ifndef MF_FC_S8_DSP_BODY_H
#define MF_FC_S8_DSP_BODY_H

#include "mf_fast.h"
#include "mf_finish.h"

MF_INLINE void mf_fc_s8_dsp_loop(const mf_fc_s8_dsp_params *p, const mf_epilogue_s8 *e,
                                 const mf_fast_addsub *aq, int kind, const int8_t *input,
                                 const int8_t *res, int8_t *output, int strided)
{
    const int32_t depth = p->depth, units = p->units, rest = depth % 8;
    const int32_t blocks = (units + 3) / 4;
    /* strided (a compile-time constant): the output is a channel slice of a wider tensor, pixels
     * (rows) p->out_stride elements apart; the residual stays dense */
    const int32_t out_stride = strided && p->out_stride ? p->out_stride : units;
    const int32_t wstep = (depth + 3) / 4 * 4; /* weight words per block of 4 units */
    const int direct = kind == MF_EP_NONE && !p->clamp && units % 4 == 0;
    const uint32_t *weights = (const uint32_t *)(const void *)p->weights;
    uint32_t last[2];  /* the row's last depth % 8 values, zero-padded */
    uint32_t stage[MF_STAGE_MAX / 4];
    mf_seg seg[2];
    int32_t row;

    for (row = 0; row < p->rows; row++) {
        const int8_t *x = input + row * depth;
        int8_t *out = output + row * out_stride;
        int32_t nseg = 0;
        if (depth >= 8) {
            seg[0].start = (intptr_t)x;
            seg[0].n = MF_SEG_N(depth / 8, 0);
            nseg = 1;
        }
        if (rest) {
            int8_t *l = (int8_t *)last;
            int32_t i;
            last[0] = 0;
            last[1] = 0;
            for (i = 0; i < rest; i++) {
                l[i] = x[depth - rest + i];
            }
            seg[nseg].start = (intptr_t)last;
            seg[nseg++].n = rest > 4 ? MF_SEG_N(1, 0) : MF_SEG_N(0, 1);
        }
        if (direct) {
            mf_fast_blocks(seg, nseg, NULL, weights, p->quant, blocks, p->lshift, out);
        } else {
            mf_fast_staged(seg, nseg, NULL, weights, wstep, p->quant, blocks, p->lshift, (int8_t *)stage,
                           units, p->clamp, p->act_min, p->act_max, e, aq, kind, res, out, row * units, 0);
        }
    }
}

/* The dense kernel's loop, and the strided one's (separate entry points, so that the dense code
 * stays exactly as it was: the stride is folded away at compile time). */
MF_INLINE void mf_fc_s8_dsp_body(const mf_fc_s8_dsp_params *p, const mf_epilogue_s8 *e,
    const mf_fast_addsub *aq, int kind, const int8_t *input, const int8_t *res, int8_t *output)
{
    mf_fc_s8_dsp_loop(p, e, aq, kind, input, res, output, 0);
}

MF_INLINE void mf_fc_s8_dsp_strided_body(const mf_fc_s8_dsp_params *p, const mf_epilogue_s8 *e,
    const mf_fast_addsub *aq, int kind, const int8_t *input, const int8_t *res, int8_t *output)
{
    mf_fc_s8_dsp_loop(p, e, aq, kind, input, res, output, 1);
}

#endif /* MF_FC_S8_DSP_BODY_H */
