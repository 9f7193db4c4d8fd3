/* Byte-moving kernels for any element type: SPLIT / SPLIT_V / UNPACK (STRIDED_SLICE: mf_move). */
#ifndef MF_SLICE_H
#define MF_SLICE_H

#include "mf_common.h"

/* SPLIT, SPLIT_V, UNPACK: the input as `outer` rows; output k takes chunk[k] bytes of each row.
 * Called with the input pointer then n_outputs output pointers. */
#define MF_SPLIT_MAX_OUTPUTS 16
typedef struct {
    int32_t n_outputs;
    int32_t outer;
    int32_t chunk[MF_SPLIT_MAX_OUTPUTS];
} mf_split_params;

void mf_split(const mf_split_params *p, const void *in, ...);

#endif /* MF_SLICE_H */
