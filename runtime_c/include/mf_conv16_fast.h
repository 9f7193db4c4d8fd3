/* microfuse runtime: the fast 16x8 CONV_2D / FULLY_CONNECTED kernel (mf_conv2d_s16_dsp).
 *
 * int16 activations feed SMLALD directly: one word load gives two input channels as an int16
 * pair, which multiplies a pair of weights and adds both products to a 64-bit accumulator in one
 * instruction, so no extension of the data is needed (int8 data needs SXTB16 first). The int8
 * weights stay int8 in flash, laid out at compile time (lower/conv16.py) in blocks of four
 * output channels: per tap, per pair of input channels (i, i+1), two words
 *     [c0 i, c1 i, c0 i+1, c1 i+1]   [c2 i, c3 i, c2 i+1, c3 i+1]
 * so SXTB16 gives channel 0's weight pair and SXTB16 ROR 8 channel 1's; with an odd channel
 * count each tap ends with one word [c0, c1, c2, c3] of the last channel's weights. The output
 * channels are padded to a multiple of four with zero weights; only real ones are stored.
 * The sums are exact: int32 (SMLAD) where lowering proved no sum can overflow (`narrow`), else
 * int64 (SMLALD); so the results equal mf_conv2d_s16's bit for bit. A
 * FULLY_CONNECTED runs as a 1x1 convolution over `rows` single-pixel images. */
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
    const uint32_t *weights;  /* the blocked layout above */
    const int64_t *bias;      /* [out_c] */
    const int32_t *mult;
    const int32_t *shift;
    int32_t out_stride;
} mf_conv2d_s16_dsp_params;

void mf_conv2d_s16_dsp(const mf_conv2d_s16_dsp_params *p, const int16_t *input, int16_t *output);

#endif /* MF_CONV16_FAST_H */
