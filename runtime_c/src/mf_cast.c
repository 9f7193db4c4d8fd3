/* microfuse runtime: CAST (mf_cast.h). Every value goes through int64 (integers, exact) or float. */
#include <stdbool.h>

#include "mf_cast.h"

static int64_t mf_cast_load(const void *in, int32_t type, int32_t i, float *f)
{
    switch (type) {
    case MF_CAST_S8: return ((const int8_t *)in)[i];
    case MF_CAST_S16: return ((const int16_t *)in)[i];
    case MF_CAST_S32: return ((const int32_t *)in)[i];
    case MF_CAST_U32: return ((const uint32_t *)in)[i];
    case MF_CAST_BOOL: return ((const bool *)in)[i] ? 1 : 0;
    default: *f = ((const float *)in)[i]; return 0;
    }
}

void mf_cast(const mf_cast_params *p, const void *in, void *out)
{
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        float f = 0.0f;
        int64_t v = mf_cast_load(in, p->from, i, &f);
        if (p->from == MF_CAST_F32 && p->to != MF_CAST_F32) {
            v = (int64_t)f; /* toward zero, then wrapped to the target like TFLM's x86 and Arm builds */
        }
        switch (p->to) {
        case MF_CAST_S8: ((int8_t *)out)[i] = (int8_t)v; break;
        case MF_CAST_S16: ((int16_t *)out)[i] = (int16_t)v; break;
        case MF_CAST_S32: ((int32_t *)out)[i] = (int32_t)v; break;
        case MF_CAST_U32: ((uint32_t *)out)[i] = (uint32_t)v; break;
        default: ((float *)out)[i] = p->from == MF_CAST_F32 ? f : (float)v; break;
        }
    }
}
