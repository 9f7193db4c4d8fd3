/* The plain kernel; its loop and its description are in mf_fc_s8_dsp_body.h. */
#include "mf_fc_s8_dsp_body.h"

void mf_fc_s8_dsp(const mf_fc_s8_dsp_params *p, const int8_t *input, int8_t *output)
{
    mf_fc_s8_dsp_body(p, NULL, NULL, MF_EP_NONE, input, NULL, output);
}
