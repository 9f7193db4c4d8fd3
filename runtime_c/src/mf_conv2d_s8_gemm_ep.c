/* CONV_2D int8 blocked: fused variants, one per int8 epilogue kind (mf_epilogue.h, mf_fast.h).
 * The loop is the plain kernel's (mf_conv2d_s8_gemm_body.h, instantiated per kind); the
 * epilogue is copied to the stack once per call. */
#include "mf_conv2d_s8_gemm_body.h"

MF_DEFINE_FAST_VARIANTS(mf_conv2d_s8_gemm, mf_conv2d_s8_gemm_ep_params, mf_conv2d_s8_gemm_body)
