/* microfuse runtime: data movement and reductions (PAD, CONCATENATION, MEAN,
 * SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND). No overlap of inputs and output assumed. */
#ifndef MF_DATA_H
#define MF_DATA_H

#include "mf_common.h"

#define MF_PAD_DIMS 5
#define MF_MEAN_DIMS 6

/* Shapes extended to MF_PAD_DIMS with leading 1s; pad value: the output zero point (int8) or 0. */
typedef struct {
    int32_t in_shape[MF_PAD_DIMS];
    int32_t out_shape[MF_PAD_DIMS];
    int32_t before[MF_PAD_DIMS];
    int32_t pad_value;
} mf_pad_params;

void mf_pad_s8(const mf_pad_params *p, const int8_t *in, int8_t *out);
void mf_pad_f32(const mf_pad_params *p, const float *in, float *out);

/* CONCATENATION as `outer` rows; input k contributes chunk[k] elements to each row.
 * Called with n_inputs input pointers then the output pointer. TFLite Micro copies int8
 * data unchanged, whatever the inputs' quantization. */
#define MF_CONCAT_MAX_INPUTS 16
typedef struct {
    int32_t n_inputs;
    int32_t outer;
    int32_t chunk[MF_CONCAT_MAX_INPUTS];
} mf_concat_params;

void mf_concat_s8(const mf_concat_params *p, ...);
void mf_concat_f32(const mf_concat_params *p, ...);

/* MEAN: output elements in order over the kept axes; for each, the reduced axes (element
 * strides into the input). int8: (sum - zp*count) requantized with the count folded in. */
typedef struct {
    int32_t n_kept;
    int32_t kept_shape[MF_MEAN_DIMS];
    int32_t kept_stride[MF_MEAN_DIMS];
    int32_t n_reduced;
    int32_t reduced_shape[MF_MEAN_DIMS];
    int32_t reduced_stride[MF_MEAN_DIMS];
    int32_t count;
    int32_t input_zero_point;
    int32_t output_zero_point;
    int32_t multiplier;
    int32_t shift;
} mf_mean_params;

void mf_mean_s8(const mf_mean_params *p, const int8_t *in, int8_t *out);
void mf_mean_f32(const mf_mean_params *p, const float *in, float *out);

/* NHWC SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND; pad_value fills padded positions (int8). */
typedef struct {
    int32_t in_shape[4];
    int32_t out_shape[4];
    int32_t block_h, block_w;
    int32_t pad_top, pad_left; /* paddings (space-to-batch) or crops (batch-to-space) */
    int32_t pad_value;
} mf_space_batch_params;

void mf_space_to_batch_s8(const mf_space_batch_params *p, const int8_t *in, int8_t *out);
void mf_space_to_batch_f32(const mf_space_batch_params *p, const float *in, float *out);
void mf_batch_to_space_s8(const mf_space_batch_params *p, const int8_t *in, int8_t *out);
void mf_batch_to_space_f32(const mf_space_batch_params *p, const float *in, float *out);

#endif /* MF_DATA_H */
