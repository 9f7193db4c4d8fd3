/* microfuse runtime: CONV_2D int8 two pixels at a time (mf_conv2d_s8_pair_body.h). The params are
 * mf_conv2d_s8_gemm's (mf_fast.h) with the weights blocked for the two-pixel loop. */
#ifndef MF_CONV2D_S8_PAIR_H
#define MF_CONV2D_S8_PAIR_H

#include "mf_fast.h"

void mf_conv2d_s8_pair(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int8_t *output);
/* in_c 1..4: both windows gathered into the pair buffer (mf_conv2d_s8_narrow.c) */
void mf_conv2d_s8_narrow(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int8_t *output);
void mf_conv2d_s8_pair_lut(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, int8_t *output);
void mf_conv2d_s8_pair_add(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_conv2d_s8_pair_sub(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_conv2d_s8_pair_rsub(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_conv2d_s8_pair_mul(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);

#endif /* MF_CONV2D_S8_PAIR_H */
