/* microfuse runtime: data movement for any element size (TRANSPOSE, SLICE, STRIDED_SLICE,
 * REVERSE_V2, DEPTH_TO_SPACE, SPACE_TO_DEPTH, BROADCAST_TO, FILL as one strided copy; PAD/PADV2,
 * MIRROR_PAD, GATHER, GATHER_ND, EMBEDDING_LOOKUP, DYNAMIC_UPDATE_SLICE) and CUMSUM.
 * Elements are copied as `elem` bytes, so one kernel serves int8, int16, int32, float and bool.
 * No overlap of inputs and output assumed. */
#ifndef MF_MOVEMENT_H
#define MF_MOVEMENT_H

#include "mf_common.h"

#define MF_MOVE_DIMS 6

/* out[i0..i5] = in[offset + sum_k i_k * stride[k]] over the output `shape` (outermost first,
 * leading 1s); a stride may be negative (REVERSE) or 0 (broadcast). Compile-time geometry. */
typedef struct {
    int32_t shape[MF_MOVE_DIMS];
    int32_t stride[MF_MOVE_DIMS];
    int32_t offset;
    int32_t elem;
} mf_move_params;

void mf_move(const mf_move_params *p, const void *in, void *out);

/* PAD / PADV2 / MIRROR_PAD over 6-D shapes with leading 1s. pad: constant fill `value` (the
 * element's bits as int32: int8/int16 sign-extended, float's bit pattern); mirror: `offset` 1 =
 * REFLECT (edge not repeated), 0 = SYMMETRIC. */
typedef struct {
    int32_t in_shape[MF_MOVE_DIMS];
    int32_t out_shape[MF_MOVE_DIMS];
    int32_t before[MF_MOVE_DIMS];
    int32_t value;
    int32_t offset;
    int32_t elem;
} mf_pad_x_params;

void mf_pad_x(const mf_pad_x_params *p, const void *in, void *out);
void mf_mirror_pad(const mf_pad_x_params *p, const void *in, void *out);

/* GATHER: out[b][o][c][:inner] = in[b][o][index[b][c]][:inner]; EMBEDDING_LOOKUP is batches =
 * outer = 1. An index outside [0, axis_size) (TFLM fails the invoke) gives zero bytes. `data` and
 * `indices` hold a constant operand (the _kd / _ki entry points), else NULL. */
typedef struct {
    int32_t batches, outer, axis_size, coords, inner, elem;
    const void *data;
    const int32_t *indices;
} mf_gather_params;

void mf_gather(const mf_gather_params *p, const void *in, const int32_t *indices, void *out);
void mf_gather_ki(const mf_gather_params *p, const void *in, void *out);
void mf_gather_kd(const mf_gather_params *p, const int32_t *indices, void *out);

/* Hybrid EMBEDDING_LOOKUP: int8 rows dequantized to float as TFLM's Dequantize does,
 * (value - 0) * scale in float; an index outside [0, rows) gives zeros. */
typedef struct {
    int32_t rows, lookups, inner;
    float scale;
    const int8_t *data;
    const int32_t *indices;
} mf_embedding_dq_params;

void mf_embedding_dq(const mf_embedding_dq_params *p, const int8_t *table, const int32_t *lookup, float *out);
void mf_embedding_dq_kd(const mf_embedding_dq_params *p, const int32_t *lookup, float *out);
void mf_embedding_dq_ki(const mf_embedding_dq_params *p, const int8_t *table, float *out);

/* GATHER_ND: slice i of `slice` elements from the element sum_j index[i][j] * count[j]; a slice
 * outside the `total` input elements gives zero bytes. */
typedef struct {
    int32_t slices, nd, slice, total, elem;
    int32_t count[5];
    const void *data;
    const int32_t *indices;
} mf_gather_nd_params;

void mf_gather_nd(const mf_gather_nd_params *p, const void *in, const int32_t *indices, void *out);
void mf_gather_nd_ki(const mf_gather_nd_params *p, const void *in, void *out);
void mf_gather_nd_kd(const mf_gather_nd_params *p, const int32_t *indices, void *out);

/* DYNAMIC_UPDATE_SLICE: the operand copied, then the update written at the start indices
 * clamped to [0, shape - update] (TFLM's rule). Runtime indices are int32 or int64
 * (`index_bytes`); the _k entry point takes constant starts from `start`. */
typedef struct {
    int32_t shape[MF_MOVE_DIMS];
    int32_t update[MF_MOVE_DIMS];
    int32_t start[MF_MOVE_DIMS];
    int32_t lead; /* leading 1s added to reach MF_MOVE_DIMS: the index operand has 6 - lead values */
    int32_t index_bytes;
    int32_t elem;
} mf_update_slice_params;

void mf_update_slice(const mf_update_slice_params *p, const void *operand, const void *update,
                     const void *indices, void *out);
void mf_update_slice_k(const mf_update_slice_params *p, const void *operand, const void *update, void *out);

/* CUMSUM along the middle of [before, depth, after]; int8 as TFLM's reference CumSum (inputs
 * scaled by 2^left_shift and input_multiplier, the running sum requantized per output). */
typedef struct {
    int32_t before, depth, after;
    int32_t exclusive, reverse;
    int32_t input_offset, output_offset, left_shift;
    int32_t input_multiplier, input_shift, output_multiplier, output_shift;
    int32_t act_min, act_max;
} mf_cumsum_params;

void mf_cumsum_f32(const mf_cumsum_params *p, const float *in, float *out);
void mf_cumsum_s8(const mf_cumsum_params *p, const int8_t *in, int8_t *out);

#endif /* MF_MOVEMENT_H */
