/* microfuse runtime: SOFTMAX over the last axis. No overlap of input and output assumed. */
#ifndef MF_SOFTMAX_H
#define MF_SOFTMAX_H

#include "mf_common.h"

/* int8 -> int8 (output scale 1/256, zero point -128), TFLite Micro's fixed-point softmax.
 * exp_lut[d] = exp(-d * beta * input_scale) in Q0.31 for a row-max difference d in 0..255,
 * computed at compile time (0 where TFLite skips the element: d beyond its diff_min). */
typedef struct {
    int32_t outer;
    int32_t depth;
    const int32_t *exp_lut;
} mf_softmax_s8_params;

typedef struct {
    int32_t outer;
    int32_t depth;
    float beta;
} mf_softmax_f32_params;

void mf_softmax_s8(const mf_softmax_s8_params *p, const int8_t *in, int8_t *out);
/* int8 -> int16 (output scale 1/65536, zero point -32768). */
void mf_softmax_s8_s16(const mf_softmax_s8_params *p, const int8_t *in, int16_t *out);
void mf_softmax_f32(const mf_softmax_f32_params *p, const float *in, float *out);

/* int16 -> int16 (output scale 1/32768, zero point 0), TFLite's SoftmaxInt16: the row-max
 * difference rescaled to [-65535, 0] ~ [-10, 0], exp and 1/(1+x) from 513-entry tables with linear
 * interpolation (built at compile time as TFLM's gen_lut). The output holds the exps meanwhile. */
typedef struct {
    int32_t outer;
    int32_t depth;
    int32_t input_multiplier, input_shift;
    const int16_t *exp_lut;
    const int16_t *recip_lut;
} mf_softmax_s16_params;

void mf_softmax_s16(const mf_softmax_s16_params *p, const int16_t *in, int16_t *out);

#endif /* MF_SOFTMAX_H */
