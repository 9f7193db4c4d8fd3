/* FULLY_CONNECTED int8 (mf_fc_s8_dsp_body.h): fused variants, one per int8 epilogue kind
 * (mf_epilogue.h, mf_fast.h); the epilogue is copied to the stack once per call. */
#include "mf_fc_s8_dsp_body.h"

MF_DEFINE_FAST_VARIANTS(mf_fc_s8_dsp, mf_fc_s8_dsp_ep_params, mf_fc_s8_dsp_body)
