/* mf_fc_s8_dsp_strided: fused variants, one per int8 epilogue kind (mf_epilogue.h, mf_fast.h),
 * writing a channel slice of a wider tensor (p->k.out_stride). */
#include "mf_fc_s8_dsp_body.h"

MF_DEFINE_FAST_VARIANTS(mf_fc_s8_dsp_strided, mf_fc_s8_dsp_ep_params, mf_fc_s8_dsp_strided_body)
