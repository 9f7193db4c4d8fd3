/* microfuse runtime: epilogues of fused kernels.
 *
 * A fused conv / depthwise / fully-connected / pool kernel computes the int8
 * (or float) value v it would have stored, exactly as the unfused kernel does
 * (requantize, zero point, its own activation clamp), and then applies the
 * chain of ops that followed it in the model, in registers:
 *
 *   int8:   v -> [pre LUT] -> [ADD | SUB | RSUB | MUL with the residual
 *           element at the same index, requantized as TFLite Micro's int8
 *           ADD/SUB/MUL do, clamped to the op's activation] -> [post LUT]
 *           A LUT is any chain of int8 unary ops as one 256-byte table
 *           (microfuse/lut.py), so every step is bit-exact with TFLM.
 *   float:  v -> up to MF_EP_F32_STEPS steps, each a unary activation or one
 *           binary op with the residual (clamped to its activation).
 *
 * The epilogue kind is a compile-time constant of each kernel variant (the
 * kernel bodies are always-inline functions instantiated once per kind), so
 * a kernel without an epilogue is the plain reference loop. Parameters are
 * computed by microfuse/lower/epilogue.py. The residual element i is read
 * once, right before output element i is stored (the memory planner may
 * place the output over the residual). */
#ifndef MF_EPILOGUE_H
#define MF_EPILOGUE_H

#include <math.h>

#include "mf_common.h"

/* Epilogue kinds (compile-time constants of the kernel variants). */
enum {
    MF_EP_NONE = 0, /* the plain kernel */
    MF_EP_LUT,      /* int8: one table */
    MF_EP_ADD,      /* int8: v + residual */
    MF_EP_SUB,      /* int8: v - residual */
    MF_EP_RSUB,     /* int8: residual - v */
    MF_EP_MUL,      /* int8: v * residual */
    MF_EP_F32       /* float: the step list */
};

typedef struct {
    const int8_t *pre;        /* table applied to v before the binary op, or NULL */
    int32_t v_offset;         /* minus the zero point of v (after pre) */
    int32_t r_offset;         /* minus the residual's zero point */
    int32_t left_shift;       /* ADD/SUB: 20 */
    int32_t v_multiplier, v_shift;
    int32_t r_multiplier, r_shift;
    int32_t output_multiplier, output_shift;
    int32_t output_offset;    /* the binary op's output zero point */
    int32_t act_min, act_max; /* the binary op's fused activation */
    const int8_t *post;       /* table applied last (MF_EP_LUT: the only step), or NULL */
} mf_epilogue_s8;

MF_INLINE int32_t mf_ep_addsub_side(int32_t x, int32_t offset, int32_t left_shift, int32_t mult,
                                    int32_t shift)
{
    return mf_requantize((int32_t)((uint32_t)(x + offset) << left_shift), mult, shift);
}

/* The int8 epilogue of `kind` on v; `res` is the residual, read at index i. */
MF_INLINE int8_t mf_ep_s8(const mf_epilogue_s8 *e, int kind, int32_t v, const int8_t *res, int32_t i)
{
    int32_t o;
    if (kind == MF_EP_NONE) {
        return (int8_t)v;
    }
    if (kind == MF_EP_LUT) {
        return e->post[(uint8_t)v];
    }
    if (e->pre != NULL) {
        v = e->pre[(uint8_t)v];
    }
    if (kind == MF_EP_MUL) {
        o = mf_requantize((v + e->v_offset) * (res[i] + e->r_offset), e->output_multiplier,
                          e->output_shift);
    } else {
        const int32_t sv = mf_ep_addsub_side(v, e->v_offset, e->left_shift, e->v_multiplier, e->v_shift);
        const int32_t sr = mf_ep_addsub_side(res[i], e->r_offset, e->left_shift, e->r_multiplier,
                                             e->r_shift);
        const int32_t raw = kind == MF_EP_ADD ? sv + sr : kind == MF_EP_SUB ? sv - sr : sr - sv;
        o = mf_requantize(raw, e->output_multiplier, e->output_shift);
    }
    o = MF_CLAMP(o + e->output_offset, e->act_min, e->act_max);
    return e->post != NULL ? e->post[(uint8_t)o] : (int8_t)o;
}

/* float steps */
#define MF_EP_F32_STEPS 4
enum {
    MF_EPF_RELU = 1, MF_EPF_RELU6, MF_EPF_LEAKY_RELU, MF_EPF_HARD_SWISH, MF_EPF_LOGISTIC, MF_EPF_TANH,
    MF_EPF_ADD, MF_EPF_SUB, MF_EPF_RSUB, MF_EPF_MUL
};

typedef struct {
    int32_t steps;
    int32_t kind[MF_EP_F32_STEPS];
    float alpha[MF_EP_F32_STEPS]; /* LEAKY_RELU's slope */
    float act_min, act_max;       /* the binary step's fused activation */
} mf_epilogue_f32;

/* One float step, as TFLite Micro's float kernels compute it. */
MF_INLINE float mf_ep_f32_step(const mf_epilogue_f32 *e, int s, float v, const float *res, int32_t i)
{
    switch (e->kind[s]) {
    case MF_EPF_RELU:
        return v < 0.0f ? 0.0f : v;
    case MF_EPF_RELU6:
        return v > 6.0f ? 6.0f : v < 0.0f ? 0.0f : v;
    case MF_EPF_LEAKY_RELU:
        return v > 0.0f ? v : v * e->alpha[s];
    case MF_EPF_HARD_SWISH:
        return v * MF_MIN(6.0f, MF_MAX(0.0f, v + 3.0f)) / 6.0f;
    case MF_EPF_LOGISTIC:
        return v > 16.619047164916992188f ? 1.0f : v < -9.0f ? expf(v) : 1.0f / (1.0f + expf(-v));
    case MF_EPF_TANH:
        return tanhf(v);
    case MF_EPF_ADD:
        return MF_CLAMP(v + res[i], e->act_min, e->act_max);
    case MF_EPF_SUB:
        return MF_CLAMP(v - res[i], e->act_min, e->act_max);
    case MF_EPF_RSUB:
        return MF_CLAMP(res[i] - v, e->act_min, e->act_max);
    case MF_EPF_MUL:
        return MF_CLAMP(v * res[i], e->act_min, e->act_max);
    default:
        return v;
    }
}

MF_INLINE float mf_ep_f32(const mf_epilogue_f32 *e, int kind, float v, const float *res, int32_t i)
{
    int s;
    if (kind == MF_EP_NONE) {
        return v;
    }
    for (s = 0; s < e->steps; s++) {
        v = mf_ep_f32_step(e, s, v, res, i);
    }
    return v;
}

#endif /* MF_EPILOGUE_H */
