/* microfuse runtime (private): the CONV_2D or DEPTHWISE_CONV_2D loop (mf_conv_body.h) run on a
 * part of its output: one pixel (mf_gap.h) or one row (mf_pool_rows.h) at a time, its padding
 * shifted to the part's window, the part stored densely.
 *
 * The fused reductions take either kind of conv: `dw` (a compile-time constant of each entry
 * point) says which member of the union holds the kernel. The geometry, batches to pad_w, is the
 * two params structs' common initial sequence (mf_conv.h), so it is read through either member
 * (C99 6.5.2.3); everything else is written through the member in use. The loops read the
 * geometry from the params as given (mf_conv_s8_view), not from their working copy: gcc keeps a
 * copy's fields in registers and spills them, 60-odd bytes more code per entry point. */
#ifndef MF_CONV_PART_H
#define MF_CONV_PART_H

#include "mf_conv_body.h"

typedef union {
    mf_conv2d_s8_params conv;
    mf_dwconv2d_s8_params dw;
} mf_conv_s8_any;

typedef union {
    mf_conv2d_f32_params conv;
    mf_dwconv2d_f32_params dw;
} mf_conv_f32_any;

/* The params k of a conv (or depthwise) kernel seen as the union, to read their geometry only. */
MF_INLINE const mf_conv_s8_any *mf_conv_s8_view(const void *k)
{
    return (const mf_conv_s8_any *)k;
}

MF_INLINE const mf_conv_f32_any *mf_conv_f32_view(const void *k)
{
    return (const mf_conv_f32_any *)k;
}

/* Input elements per image. */
MF_INLINE int32_t mf_conv_s8_image(const mf_conv_s8_any *k)
{
    return k->conv.in_h * k->conv.in_w * k->conv.in_c;
}

MF_INLINE int32_t mf_conv_f32_image(const mf_conv_f32_any *k)
{
    return k->conv.in_h * k->conv.in_w * k->conv.in_c;
}

/* Make k compute one image's part of out_h x out_w pixels, stored densely. */
MF_INLINE void mf_conv_s8_part(int dw, mf_conv_s8_any *k, int32_t out_h, int32_t out_w)
{
    if (dw) {
        k->dw.batches = 1;
        k->dw.out_h = out_h;
        k->dw.out_w = out_w;
        k->dw.out_stride = 0;
    } else {
        k->conv.batches = 1;
        k->conv.out_h = out_h;
        k->conv.out_w = out_w;
        k->conv.out_stride = 0;
    }
}

MF_INLINE void mf_conv_f32_part(int dw, mf_conv_f32_any *k, int32_t out_h, int32_t out_w)
{
    if (dw) {
        k->dw.batches = 1;
        k->dw.out_h = out_h;
        k->dw.out_w = out_w;
        k->dw.out_stride = 0;
    } else {
        k->conv.batches = 1;
        k->conv.out_h = out_h;
        k->conv.out_w = out_w;
        k->conv.out_stride = 0;
    }
}

/* The part whose window starts pad_h rows and pad_w columns before the image's first. */
MF_INLINE void mf_conv_s8_run(int dw, mf_conv_s8_any *k, int32_t pad_h, int32_t pad_w,
                              const mf_epilogue_s8 *e, int kind, const int8_t *input,
                              const int8_t *res, int8_t *output)
{
    if (dw) {
        k->dw.pad_h = pad_h;
        k->dw.pad_w = pad_w;
        mf_dwconv2d_s8_body(&k->dw, e, kind, input, res, output);
    } else {
        k->conv.pad_h = pad_h;
        k->conv.pad_w = pad_w;
        mf_conv2d_s8_body(&k->conv, e, kind, input, res, output);
    }
}

MF_INLINE void mf_conv_f32_run(int dw, mf_conv_f32_any *k, int32_t pad_h, int32_t pad_w,
                               const mf_epilogue_f32 *e, int kind, const float *input,
                               const float *res, float *output)
{
    if (dw) {
        k->dw.pad_h = pad_h;
        k->dw.pad_w = pad_w;
        mf_dwconv2d_f32_body(&k->dw, e, kind, input, res, output);
    } else {
        k->conv.pad_h = pad_h;
        k->conv.pad_w = pad_w;
        mf_conv2d_f32_body(&k->conv, e, kind, input, res, output);
    }
}

#endif /* MF_CONV_PART_H */
