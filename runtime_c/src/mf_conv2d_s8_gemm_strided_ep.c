/* mf_conv2d_s8_gemm_strided: fused variants, one per int8 epilogue kind (mf_epilogue.h, mf_fast.h),
 * writing a channel slice of a wider tensor (p->k.out_stride). */
#include "mf_conv2d_s8_gemm_body.h"

MF_DEFINE_FAST_VARIANTS(mf_conv2d_s8_gemm_strided, mf_conv2d_s8_gemm_ep_params, mf_conv2d_s8_gemm_strided_body)
