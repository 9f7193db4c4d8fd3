/* microfuse runtime: horizontally fused siblings — convolutions (or fully-connected layers)
 * that read the same input with the same geometry, computed by one call over their
 * concatenated filters, each output-channel range written to its own tensor.
 *
 * Output channel oc of the call is channel j of output r (ranges in order). Each channel
 * is computed exactly as its own layer's reference kernel does (mf_conv2d_s8 / mf_fc_s8*):
 * the folded bias, per-channel multiplier and shift, then the zero point and activation
 * clamp of its output r. Outputs may be channel slices of a wider tensor (out_stride). The
 * conv visits output pixels in NHWC raster order and finishes all outputs of a pixel
 * before the next; the fully-connected layer finishes a row of every output in turn. */
#ifndef MF_MULTI_H
#define MF_MULTI_H

#include "mf_conv.h"
#include "mf_fc.h"

#define MF_MULTI_MAX 4

typedef struct {
    int32_t n_outputs;
    int32_t out_c[MF_MULTI_MAX];          /* channels (units) of each output */
    int32_t out_stride[MF_MULTI_MAX];     /* elements between its pixels (rows); 0: out_c */
    int32_t out_zero_point[MF_MULTI_MAX];
    int32_t act_min[MF_MULTI_MAX], act_max[MF_MULTI_MAX];
} mf_multi_outputs;

/* k: every sibling's filters, folded bias, multipliers and shifts concatenated (k.out_c in
 * all); k's own out_zero_point, act_min, act_max and out_stride are not used. */
typedef struct {
    mf_conv2d_s8_params k;
    mf_multi_outputs o;
} mf_conv2d_s8_multi_params;

typedef struct {
    mf_fc_s8_pc_params k;   /* units in all; per-unit multipliers and shifts */
    mf_multi_outputs o;
} mf_fc_s8_multi_params;

void mf_conv2d_s8_x2(const mf_conv2d_s8_multi_params *p, const int8_t *input, int8_t *out0, int8_t *out1);
void mf_conv2d_s8_x3(const mf_conv2d_s8_multi_params *p, const int8_t *input, int8_t *out0, int8_t *out1,
                     int8_t *out2);
void mf_conv2d_s8_x4(const mf_conv2d_s8_multi_params *p, const int8_t *input, int8_t *out0, int8_t *out1,
                     int8_t *out2, int8_t *out3);
void mf_fc_s8_x2(const mf_fc_s8_multi_params *p, const int8_t *input, int8_t *out0, int8_t *out1);
void mf_fc_s8_x3(const mf_fc_s8_multi_params *p, const int8_t *input, int8_t *out0, int8_t *out1,
                 int8_t *out2);
void mf_fc_s8_x4(const mf_fc_s8_multi_params *p, const int8_t *input, int8_t *out0, int8_t *out1,
                 int8_t *out2, int8_t *out3);

#endif /* MF_MULTI_H */
