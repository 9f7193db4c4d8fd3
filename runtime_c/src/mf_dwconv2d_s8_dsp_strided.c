/* The plain kernel writing a channel slice of a wider tensor (p->out_stride elements between
 * output pixels); its loop is the dense kernel's (mf_dwconv2d_s8_dsp_body.h). */
#include "mf_dwconv2d_s8_dsp_body.h"

void mf_dwconv2d_s8_dsp_strided(const mf_dwconv2d_s8_dsp_params *p, const int8_t *input, int8_t *output)
{
    mf_dwconv2d_s8_dsp_strided_body(p, NULL, NULL, MF_EP_NONE, input, NULL, output);
}
