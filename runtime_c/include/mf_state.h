/* State ops: copies between the arena and the state area (READ_VARIABLE, ASSIGN_VARIABLE). */
#ifndef MF_STATE_H
#define MF_STATE_H

#include "mf_common.h"

typedef struct {
    uint32_t bytes;
} mf_copy_params;

/* out[0..bytes) = in[0..bytes); the two never overlap (one is in the state area). */
void mf_copy(const mf_copy_params *p, const void *in, void *out);

#endif /* MF_STATE_H */
