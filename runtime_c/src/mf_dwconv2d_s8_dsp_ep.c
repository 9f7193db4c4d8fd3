/* DEPTHWISE_CONV_2D int8 (mf_dwconv2d_s8_dsp_body.h): fused variants, one per int8 epilogue kind
 * (mf_epilogue.h, mf_fast.h); the epilogue is copied to the stack once per call. */
#include "mf_dwconv2d_s8_dsp_body.h"

MF_DEFINE_FAST_VARIANTS(mf_dwconv2d_s8_dsp, mf_dwconv2d_s8_dsp_ep_params, mf_dwconv2d_s8_dsp_body)
