/* microfuse runtime: the kernels only a cascade calls (microfuse/ops/cascade.py). A cascade runs
 * its members band by band and moves the rows a ring keeps down to its start (mf_ring_keep); a
 * global AVERAGE_POOL_2D ending one reads its input a band of rows at a time and keeps the
 * per-channel int32 sums in the cascade's scratch between calls. */
#ifndef MF_CASCADE_H
#define MF_CASCADE_H

#include "mf_common.h"

typedef struct {
    int32_t pixels;           /* pixels of this band (rows * width) */
    int32_t channels;
    int32_t start;            /* 1: the first band: the sums start from zero */
    int32_t finish;           /* 1: the last band: store the average */
    int32_t count;            /* pixels of the whole image */
    int32_t act_min, act_max; /* the pool's fused activation, quantized */
} mf_rowsum_s8_params;

/* Adds a band's pixels to the sums (scratch: channels int32); after the last band stores, per
 * channel, TFLM's int8 average: (sum +- count / 2) / count, clamped to the activation. */
void mf_rowsum_s8(const mf_rowsum_s8_params *p, const int8_t *input, int8_t *output, void *scratch);

/* A ring's rows [src, src + bytes) moved down to dst (dst < src; the ranges may overlap): as
 * memmove, by whole blocks of words where the DSP cores' assembly runs and all three are
 * word-aligned. */
void mf_ring_keep(void *dst, const void *src, uint32_t bytes);

#endif /* MF_CASCADE_H */
