/* Byte-moving kernels for any element type: STRIDED_SLICE, and SPLIT / SPLIT_V / UNPACK. */
#ifndef MF_SLICE_H
#define MF_SLICE_H

#include "mf_common.h"

/* STRIDED_SLICE as a 5-D gather: output element (i0..i4) is the `elem`-byte element at
 * start + sum(i_d * in_stride[d]) bytes of the input. */
typedef struct {
    int32_t out_shape[5];
    int32_t in_stride[5];
    int32_t start;
    int32_t elem;
} mf_strided_slice_params;

void mf_strided_slice(const mf_strided_slice_params *p, const void *in, void *out);

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
