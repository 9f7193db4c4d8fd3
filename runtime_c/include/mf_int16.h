/* microfuse runtime: kernels of 16-bit activation ("16x8") models: requantization between
 * integer types (QUANTIZE), ADD/SUB, LEAKY_RELU, bit-exact with TFLite Micro's reference
 * kernels. Every element i of the output is written after element i of the inputs is read, in
 * increasing i (the planner may overlap them). */
#ifndef MF_INT16_H
#define MF_INT16_H

#include "mf_common.h"
#include "mf_elementwise.h"

/* TFLM's reference_ops::Requantize (QUANTIZE between integer types): out = clamp(
 * MultiplyByQuantizedMultiplier(in - input_zero_point, multiplier, shift) + output_zero_point). */
typedef struct {
    int32_t size;
    int32_t input_zero_point, output_zero_point;
    int32_t multiplier, shift;
} mf_requantize_params;

void mf_requantize_s16_s8(const mf_requantize_params *p, const int16_t *in, int8_t *out);
void mf_requantize_s16_s16(const mf_requantize_params *p, const int16_t *in, int16_t *out);
void mf_requantize_s16_s32(const mf_requantize_params *p, const int16_t *in, int32_t *out);
void mf_requantize_s8_s16(const mf_requantize_params *p, const int8_t *in, int16_t *out);
void mf_requantize_s8_s32(const mf_requantize_params *p, const int8_t *in, int32_t *out);
void mf_requantize_s32_s8(const mf_requantize_params *p, const int32_t *in, int8_t *out);
void mf_requantize_s32_s16(const mf_requantize_params *p, const int32_t *in, int16_t *out);

/* int16 ADD/SUB (reference_ops::AddElementwise / SubElementwise on int16, TFLM's general-scale
 * path): mf_addsub_params (mf_elementwise.h) with left_shift 15. */
void mf_add_s16(const mf_addsub_params *p, const int16_t *in1, const int16_t *in2, int16_t *out);
void mf_sub_s16(const mf_addsub_params *p, const int16_t *in1, const int16_t *in2, int16_t *out);
void mf_add_s16_k(const mf_addsub_params *p, const int16_t *in, int16_t *out);
void mf_sub_s16_k(const mf_addsub_params *p, const int16_t *in, int16_t *out);

/* int16 LEAKY_RELU (reference_ops::QuantizeLeakyRelu): x - zp_in >= 0 scaled by the identity
 * multiplier, else by the alpha one, plus zp_out, saturated. */
typedef struct {
    int32_t size;
    int32_t input_zero_point, output_zero_point;
    int32_t identity_multiplier, identity_shift;
    int32_t alpha_multiplier, alpha_shift;
} mf_leaky_relu_s16_params;

void mf_leaky_relu_s16(const mf_leaky_relu_s16_params *p, const int16_t *in, int16_t *out);

/* int16 MUL (reference_integer_ops::Mul / BroadcastMul4DSlow on int16; TFLM requires every
 * zero point 0): (a * b) requantized once, saturated to the activation range. */
typedef struct {
    mf_broadcast b;
    int32_t output_multiplier, output_shift;
    int32_t act_min, act_max;
    const int16_t *constant;
    int32_t constant_index;
} mf_mul_s16_params;

void mf_mul_s16(const mf_mul_s16_params *p, const int16_t *in1, const int16_t *in2, int16_t *out);
void mf_mul_s16_k(const mf_mul_s16_params *p, const int16_t *in, int16_t *out);

/* int16 RELU (activations.cc ReluQuantized<int16_t>): the input requantized to the output's
 * scale, clamped to [act_min, act_max]; RELU6 (Relu6Quantized<int16_t>) only clamps the stored
 * value to [act_min, act_max] (0 and 6 in the input's scale). */
typedef struct {
    int32_t size;
    int32_t multiplier, shift;
    int32_t act_min, act_max;
} mf_relu_s16_params;

void mf_relu_s16(const mf_relu_s16_params *p, const int16_t *in, int16_t *out);
void mf_relu6_s16(const mf_relu_s16_params *p, const int16_t *in, int16_t *out);

/* int16 LOGISTIC and TANH (reference_integer_ops::Logistic / Tanh on int16): the input scaled
 * to the table's 1/(3*4096) by (x * multiplier + round) >> shift, then TFLite's 256-entry sigmoid
 * table (in the params) interpolated linearly on the absolute value; tanh(x) = 2 sigmoid(2x) - 1. */
typedef struct {
    int32_t size;
    int32_t multiplier, shift;
    const uint16_t *table;
} mf_sigmoid_s16_params;

void mf_logistic_s16(const mf_sigmoid_s16_params *p, const int16_t *in, int16_t *out);
void mf_tanh_s16(const mf_sigmoid_s16_params *p, const int16_t *in, int16_t *out);

#endif /* MF_INT16_H */
