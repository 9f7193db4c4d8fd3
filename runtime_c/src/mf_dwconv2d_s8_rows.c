/* The plain kernel; its loop and its description are in mf_dwconv2d_s8_rows_body.h. */
#include "mf_dwconv2d_s8_rows_body.h"

void mf_dwconv2d_s8_rows(const mf_dwconv2d_s8_rows_params *p, const int8_t *input, int8_t *output,
                         void *scratch)
{
    mf_dwconv2d_s8_rows_body(p, NULL, MF_EP_NONE, input, NULL, output, scratch, 0, 0, 0);
}

void mf_dwconv2d_s8_rows3x3(const mf_dwconv2d_s8_rows_params *p, const int8_t *input,
                            int8_t *output, void *scratch)
{
    mf_dwconv2d_s8_rows_body(p, NULL, MF_EP_NONE, input, NULL, output, scratch, 3, 3, 1);
}
