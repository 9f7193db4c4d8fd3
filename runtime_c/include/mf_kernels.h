/* microfuse runtime: every kernel the emitted code may call. */
#ifndef MF_KERNELS_H
#define MF_KERNELS_H

#include "mf_common.h"

#endif /* MF_KERNELS_H */
