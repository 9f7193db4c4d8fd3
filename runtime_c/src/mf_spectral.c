/* SignalFilterBankSpectralSubtraction (TFLM signal/src/filter_bank_spectral_subtraction): a low-pass
 * noise estimate per channel, kept between invokes, subtracted from the signal down to a floor. */
#include "mf_spectral.h"

void mf_spectral_subtraction_u32(const mf_spectral_subtraction_params *p, const uint32_t *in, uint32_t *out,
                                 uint32_t *noise, void *state)
{
    uint32_t *estimate = (uint32_t *)state;
    int32_t i;
    for (i = 0; i < p->size; ++i) {
        const int odd = i & 1;
        const uint32_t a = odd ? p->alternate_smoothing : p->smoothing;
        const uint32_t b = odd ? p->alternate_one_minus_smoothing : p->one_minus_smoothing;
        const uint32_t scaled = in[i] << p->smoothing_bits; /* uint32 arithmetic, as TFLM's */
        const uint32_t floor = (uint32_t)(((uint64_t)in[i] * p->min_signal_remaining) >> p->subtraction_bits);
        uint32_t subtracted, kept;
        kept = (uint32_t)(((uint64_t)scaled * a + (uint64_t)estimate[i] * b) >> p->subtraction_bits);
        estimate[i] = kept;
        if (kept > scaled) { /* never below zero; with clamping the estimate follows the signal down */
            kept = scaled;
            if (p->clamping) {
                estimate[i] = kept;
            }
        }
        subtracted = (scaled - kept) >> p->smoothing_bits;
        out[i] = subtracted > floor ? subtracted : floor;
    }
    for (i = 0; i < p->size; ++i) {
        noise[i] = estimate[i];
    }
}
