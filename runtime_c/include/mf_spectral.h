/* SignalFilterBankSpectralSubtraction: TFLM's noise-estimate subtraction on filter-bank channels. */
#ifndef MF_SPECTRAL_H
#define MF_SPECTRAL_H

#include "mf_common.h"

/* The coefficients are scaled by 2^subtraction_bits; the smoothing filter works on the input
 * scaled up by 2^smoothing_bits. Even channels use smoothing, odd ones alternate_smoothing. */
typedef struct {
    int32_t size, smoothing_bits, subtraction_bits, clamping;
    uint32_t smoothing, one_minus_smoothing, alternate_smoothing, alternate_one_minus_smoothing;
    uint32_t min_signal_remaining;
} mf_spectral_subtraction_params;

/* `state` is the kernel's own noise estimate (size uint32, zero at the start of a stream); each
 * invoke updates it and copies it to `noise`. */
void mf_spectral_subtraction_u32(const mf_spectral_subtraction_params *p, const uint32_t *in, uint32_t *out,
                                 uint32_t *noise, void *state);

#endif /* MF_SPECTRAL_H */
