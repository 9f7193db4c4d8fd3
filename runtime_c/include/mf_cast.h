/* microfuse runtime: CAST as TFLM's cast.cc does it, static_cast per element: integers wrap to
 * the narrower type, floats truncate toward zero (outside the target range undefined, as in TFLM),
 * integers round to the nearest float, bool is 0 or 1. */
#ifndef MF_CAST_H
#define MF_CAST_H

#include "mf_common.h"

enum { MF_CAST_S8, MF_CAST_S16, MF_CAST_S32, MF_CAST_U32, MF_CAST_F32, MF_CAST_BOOL };

typedef struct {
    int32_t size;
    int32_t from, to; /* MF_CAST_* codes */
} mf_cast_params;

void mf_cast(const mf_cast_params *p, const void *in, void *out);

#endif /* MF_CAST_H */
