/* microfuse runtime: every kernel the emitted code may call. */
#ifndef MF_KERNELS_H
#define MF_KERNELS_H

#include "mf_common.h"
#include "mf_conv.h"
#include "mf_fc.h"
#include "mf_pool.h"
#include "mf_fused.h"
#include "mf_gap.h"
#include "mf_pool_rows.h"
#include "mf_elementwise.h"
#include "mf_minmax.h"
#include "mf_softmax.h"
#include "mf_data.h"
#include "mf_fast.h"
#include "mf_multi.h"
#include "mf_state.h"
#include "mf_slice.h"

#endif /* MF_KERNELS_H */
