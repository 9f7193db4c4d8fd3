/* microfuse runtime: fast int8 kernels (blocked convolution, depthwise, fully-connected): their
 * parameters and entry points. None of them uses arena scratch; weights stay int8 in flash.
 *
 * Selected at compile time by microfuse/lower/fast.py when an op fits; the reference kernels
 * (mf_conv2d_s8.c, ...) stay the fallback. The kernels' loops are in mf_conv2d_s8_gemm_body.h,
 * mf_dwconv2d_s8_dsp_body.h and mf_fc_s8_dsp_body.h, built from:
 *   mf_isa.h      the instructions (SXTB16, SMLAD, SMMLAR, ...) as inline functions, or plain C;
 *   mf_requant.h  the per-channel table and its requantization, four channels at a time;
 *   mf_dot.h      the blocked dot product (convolution, fully-connected);
 *   mf_finish.h   the finishing pass through a stack stage (clamp, epilogue). */
#ifndef MF_FAST_H
#define MF_FAST_H

#include "mf_common.h"
#include "mf_epilogue.h"

/* CONV_2D: per output pixel, four output channels at a time, each a dot product over the window
 * read straight from the input (window rows as runs, or tap by tap at the image border, taps
 * outside the image read from `zrow`; at most 16 runs); input channels not a multiple of 4 are
 * gathered first into a stack buffer of MF_GATHER_MAX bytes. */
typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_h, pad_w;
    int32_t depth;          /* weight bytes per channel: k_h*k_w*in_c, or the gathered window
                               rounded up to a multiple of 8 when in_c % 4 != 0 */
    int32_t in_zero_point;  /* value of taps outside the image */
    int32_t act_min, act_max;
    int32_t clamp;          /* 1: [act_min, act_max] is narrower than int8 */
    int32_t lshift;         /* TFLite's left shift + 1 (the same for every channel), | MF_W16 */
    int32_t reverse;        /* 1: pixels last to first (a backward run of the memory plan) */
    const int32_t *weights; /* int8 words [out_c / 4][chunks][4 channels][chunk] */
    const int32_t *quant;   /* channel table [out_c / 4][MF_Q_WORDS] (blocks of 4, mf_requant.h) */
    const int32_t *zrow;    /* k_w * in_c bytes of the input zero point, or NULL (no padding);
                               mf_conv2d_s8_narrow (its bands pad): its window's read list */
    const int32_t *addq;    /* mf_fast_addsub of a fused residual ADD / SUB, or NULL */
    int32_t out_stride;     /* elements between output pixels: 0 = out_c (dense); more when the
                               output is a channel slice of a wider tensor (concat) */
} mf_conv2d_s8_gemm_params;

/* DEPTHWISE_CONV_2D (depth multiplier 1, channels a multiple of 4, up to 32 taps): per output
 * pixel, four channels at a time; a tap is one word of input and two of int16 weights, 4 MACs
 * (SMLABB / SMLATT). */
typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_h, pad_w;
    int32_t in_zero_point;
    int32_t act_min, act_max;
    int32_t clamp;          /* 1: [act_min, act_max] is narrower than int8 */
    int32_t lshift;         /* TFLite's left shift + 1 (the same for every channel), | MF_W16 */
    int32_t reverse;        /* 1: pixels (and channel groups) last to first */
    const int32_t *weights; /* lshift & MF_W16: [out_c / 4][4 biases, k_h * k_w x 2 int16 lane
                               words], shifted by lshift; else int8 words [out_c / 4][k_h * k_w][4] */
    const int32_t *quant;   /* channel table [out_c / 4][MF_Q_WORDS] */
    const int32_t *zrow;    /* in_c bytes of the input zero point, or NULL (no padding) */
    const int32_t *addq;    /* mf_fast_addsub of a fused residual ADD / SUB, or NULL */
    int32_t out_stride;     /* elements between output pixels: 0 = out_c (dense) */
} mf_dwconv2d_s8_dsp_params;

/* FULLY_CONNECTED: per input row, four units at a time, each a dot product over the row. */
typedef struct {
    int32_t rows, depth, units;
    int32_t act_min, act_max;
    int32_t clamp;          /* 1: [act_min, act_max] is narrower than int8 */
    int32_t lshift;         /* TFLite's left shift + 1 (the same for every unit) */
    const int32_t *weights; /* int8 words [units / 4][chunks][4 units][chunk] */
    const int32_t *quant;   /* channel table [units / 4][MF_Q_WORDS] */
    const int32_t *addq;    /* mf_fast_addsub of a fused residual ADD / SUB, or NULL */
    int32_t out_stride;     /* elements between output rows: 0 = units (dense) */
} mf_fc_s8_dsp_params;

void mf_conv2d_s8_gemm(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int8_t *output);
void mf_dwconv2d_s8_dsp(const mf_dwconv2d_s8_dsp_params *p, const int8_t *input, int8_t *output);
void mf_fc_s8_dsp(const mf_fc_s8_dsp_params *p, const int8_t *input, int8_t *output);
void mf_fc_s8_dsp8(const mf_fc_s8_dsp_params *p, const int8_t *input, int8_t *output); /* depth % 8 == 0, no clamp (mf_fc_row.h) */
/* The same kernels writing a channel slice of a wider tensor (out_stride > 0, an eliminated
 * concatenation): separate entry points, so that the dense ones pay nothing for it. */
void mf_conv2d_s8_gemm_strided(const mf_conv2d_s8_gemm_params *p, const int8_t *input, int8_t *output);
void mf_dwconv2d_s8_dsp_strided(const mf_dwconv2d_s8_dsp_params *p, const int8_t *input, int8_t *output);
void mf_fc_s8_dsp_strided(const mf_fc_s8_dsp_params *p, const int8_t *input, int8_t *output);

/* Fused variants (mf_epilogue.h): the plain kernel's params `k` and the epilogue's `ep`; the
 * residual variants read it at the output's index. Chosen by lower/conv.py's pick() like the
 * reference kernels' fused variants (lower/epilogue.py fused_kernels). */
typedef struct { mf_conv2d_s8_gemm_params k; mf_epilogue_s8 ep; } mf_conv2d_s8_gemm_ep_params;
typedef struct { mf_dwconv2d_s8_dsp_params k; mf_epilogue_s8 ep; } mf_dwconv2d_s8_dsp_ep_params;
typedef struct { mf_fc_s8_dsp_params k; mf_epilogue_s8 ep; } mf_fc_s8_dsp_ep_params;

void mf_conv2d_s8_gemm_lut(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, int8_t *output);
void mf_conv2d_s8_gemm_add(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_conv2d_s8_gemm_sub(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_conv2d_s8_gemm_rsub(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_conv2d_s8_gemm_mul(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_dwconv2d_s8_dsp_lut(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, int8_t *output);
void mf_dwconv2d_s8_dsp_add(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_dwconv2d_s8_dsp_sub(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_dwconv2d_s8_dsp_rsub(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_dwconv2d_s8_dsp_mul(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_dsp_lut(const mf_fc_s8_dsp_ep_params *p, const int8_t *input, int8_t *output);
void mf_fc_s8_dsp_add(const mf_fc_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_dsp_sub(const mf_fc_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_dsp_rsub(const mf_fc_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_dsp_mul(const mf_fc_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_conv2d_s8_gemm_strided_lut(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, int8_t *output);
void mf_conv2d_s8_gemm_strided_add(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_conv2d_s8_gemm_strided_sub(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_conv2d_s8_gemm_strided_rsub(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_conv2d_s8_gemm_strided_mul(const mf_conv2d_s8_gemm_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_dwconv2d_s8_dsp_strided_lut(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, int8_t *output);
void mf_dwconv2d_s8_dsp_strided_add(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_dwconv2d_s8_dsp_strided_sub(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_dwconv2d_s8_dsp_strided_rsub(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_dwconv2d_s8_dsp_strided_mul(const mf_dwconv2d_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_dsp_strided_lut(const mf_fc_s8_dsp_ep_params *p, const int8_t *input, int8_t *output);
void mf_fc_s8_dsp_strided_add(const mf_fc_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_dsp_strided_sub(const mf_fc_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_dsp_strided_rsub(const mf_fc_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);
void mf_fc_s8_dsp_strided_mul(const mf_fc_s8_dsp_ep_params *p, const int8_t *input, const int8_t *res, int8_t *output);

#endif /* MF_FAST_H */
