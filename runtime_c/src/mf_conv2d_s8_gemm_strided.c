/* The plain kernel writing a channel slice of a wider tensor (p->out_stride elements between
 * output pixels); its loop is the dense kernel's (mf_conv2d_s8_gemm_body.h). */
#include "mf_conv2d_s8_gemm_body.h"

void mf_conv2d_s8_gemm_strided(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int8_t *output)
{
    mf_conv2d_s8_gemm_strided_body(p, NULL, NULL, MF_EP_NONE, input, NULL, output);
}
