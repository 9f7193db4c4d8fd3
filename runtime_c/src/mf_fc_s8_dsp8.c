/* FULLY_CONNECTED int8, depth a multiple of 8, units a multiple of 4, no epilogue nor clamp: each
 * row straight into the output by mf_fc_row (mf_fc_row.h: its 8-value chunks four to a loop
 * turn). The same params, weight layout and access order as mf_fc_s8_dsp (mf_fc_s8_dsp_body.h),
 * which lower/fast_rows.py picks instead where this kernel does not fit or would not pay for its
 * code. */
#include "mf_fc_row.h"

void mf_fc_s8_dsp8(const mf_fc_s8_dsp_params *p, const int8_t *input, int8_t *output)
{
    const uint32_t *weights = (const uint32_t *)(const void *)p->weights;
    int32_t row;
    for (row = 0; row < p->rows; row++) {
        mf_fc_row(input + row * p->depth, p->depth / 8, weights, p->quant, p->units / 4, p->lshift,
                  output + row * p->units);
    }
}
