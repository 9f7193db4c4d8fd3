/* The plain kernel writing a channel slice of a wider tensor (p->out_stride elements between
 * output rows); its loop is the dense kernel's (mf_fc_s8_dsp_body.h). */
#include "mf_fc_s8_dsp_body.h"

void mf_fc_s8_dsp_strided(const mf_fc_s8_dsp_params *p, const int8_t *input, int8_t *output)
{
    mf_fc_s8_dsp_strided_body(p, NULL, NULL, MF_EP_NONE, input, NULL, output);
}
