/* microfuse runtime: RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR over NHWC, as TFLite Micro computes
 * them. The source rows and columns of every output row and column (and the bilinear weights) are
 * computed at compile time: TFLM's float index arithmetic then never runs on the target. */
#ifndef MF_RESIZE_H
#define MF_RESIZE_H

#include "mf_common.h"

typedef struct {
    int32_t batches, in_h, in_w, depth, out_h, out_w;
    const int32_t *y0; /* per output row: the source row (bilinear: the upper one) */
    const int32_t *y1; /* bilinear: the lower source row */
    const int32_t *x0; /* per output column: the source column (bilinear: the left one) */
    const int32_t *x1; /* bilinear: the right source column */
    const int32_t *wy; /* int8 bilinear: the lower row's weight in 1/1024 (TFLM's ResizeBilinearInteger) */
    const int32_t *wx;
    const float *fy; /* float bilinear: the lower row's weight (input_y - y0) */
    const float *fx;
} mf_resize_params;

void mf_resize_nearest_s8(const mf_resize_params *p, const int8_t *in, int8_t *out);
void mf_resize_nearest_s16(const mf_resize_params *p, const int16_t *in, int16_t *out);
void mf_resize_nearest_f32(const mf_resize_params *p, const float *in, float *out);
void mf_resize_bilinear_s8(const mf_resize_params *p, const int8_t *in, int8_t *out);
void mf_resize_bilinear_f32(const mf_resize_params *p, const float *in, float *out);

#endif /* MF_RESIZE_H */
