/* microfuse runtime: ADD_N as TFLM computes it: float32 summed from 0 in input order; int8
 * rescaled per input ((q + offset) << 20, times the input multiplier), summed in int32 from
 * `init`, then rescaled once to the output. Inputs are variadic: n_inputs pointers, then the output. */
#ifndef MF_ADD_N_H
#define MF_ADD_N_H

#include "mf_common.h"

#define MF_ADD_N_MAX_INPUTS 16

typedef struct {
    int32_t size, n_inputs;
    int32_t input_offset, left_shift, input_multiplier, input_shift; /* int8 only */
    int32_t init; /* the int32 sum's start (TFLM's scaled x) */
    int32_t output_offset, output_multiplier, output_shift;
} mf_add_n_params;

void mf_add_n_f32(const mf_add_n_params *p, ...);
void mf_add_n_s8(const mf_add_n_params *p, ...);

#endif /* MF_ADD_N_H */
