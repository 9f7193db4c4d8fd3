/* microfuse runtime: the fast 16x8 CONV_2D / FULLY_CONNECTED kernel (mf_conv2d_s16_dsp).
 *
 * int16 activations feed SMLAD directly: one word load gives two adjacent input values as an
 * int16 pair, and SMLAD multiplies it with a pair of weights and adds both products in one
 * instruction; int8 data needs SXTB16 first. So that the weights need no extension either, they
 * are widened to int16 at compile time (twice the flash of int8 weights: the price of ~1.1
 * instructions per MAC against ~1.6 with SXTB16 on every weight word), laid out
 * (lower/conv16.py) in blocks of four output channels; a window row's k_w * in_c values r are
 * adjacent in the input (dilation_w 1), so per row, per pair (r, r+1), four words
 *     [c0 r, c0 r+1] [c1 r, c1 r+1] [c2 r, c2 r+1] [c3 r, c3 r+1]
 * and with an odd count the last value's four weights [c0, c1, c2, c3]. The output channels are
 * padded to a multiple of four with zero weights; only real ones are stored. A border pixel's
 * clipped rows run tap by tap. The sums are exact: int32 where lowering proved the whole window
 * cannot overflow (`narrow`), else int32 per window row (proved too), moved to int64; so the
 * results equal mf_conv2d_s16's bit for bit. A FULLY_CONNECTED runs as a 1x1 convolution over
 * `rows` single-pixel images. */
#ifndef MF_CONV16_FAST_H
#define MF_CONV16_FAST_H

#include "mf_conv16.h"
#include "mf_isa.h"

typedef struct {
    int32_t batches;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dilation_h, dilation_w;
    int32_t pad_h, pad_w;
    int32_t act_min, act_max;
    int32_t wide;
    int32_t narrow;           /* 1: taps * 32768 * max|weight| < 2^31, int32 sums are exact */
    const int16_t *weights;   /* the blocked layout above */
    const int64_t *bias;      /* [out_c] */
    const int32_t *mult;
    const int32_t *shift;
    int32_t out_stride;
} mf_conv2d_s16_dsp_params;

void mf_conv2d_s16_dsp(const mf_conv2d_s16_dsp_params *p, const int16_t *input, int16_t *output);

#endif /* MF_CONV16_FAST_H */
