/* microfuse runtime: TFLM's signal-library custom ops (signal/src, signal/micro/kernels), the
 * audio front end of micro_speech: window, FFT auto-scale, energy, mel filter bank, its square
 * root and log, PCAN gain control. Integer arithmetic bit-exact with TFLM's, including its
 * wrap-arounds (written out here with unsigned arithmetic, where C++ would be undefined). */
#ifndef MF_SIGNAL_H
#define MF_SIGNAL_H

#include "mf_common.h"

/* SignalWindow: out[i] = saturate16((in[i] * window[i % window_size]) >> shift). */
typedef struct {
    int32_t size, window_size, shift;
    const int16_t *window;
} mf_signal_window_params;

/* SignalFftAutoScale: shift every value left by the bits the largest |value| leaves free. */
typedef struct {
    int32_t size;
} mf_signal_fft_auto_scale_params;

/* SignalEnergy: out[i] = re^2 + im^2 of complex bin i for start <= i < end; 0 elsewhere. */
typedef struct {
    int32_t bins, start, end;
} mf_signal_energy_params;

/* SignalFilterBank: weighted sums of the spectrum per channel (channel 0 of TFLM's work area,
 * its scratch, is dropped: widths/starts hold num_channels + 1 entries). */
typedef struct {
    int32_t channels;
    const int16_t *weights, *unweights, *freq_starts, *weight_starts, *widths;
} mf_signal_filter_bank_params;

/* SignalFilterBankSquareRoot: out[i] = sqrt64(in[i]) >> scale_bits (a runtime int32 scalar). */
typedef struct {
    int32_t size;
} mf_signal_filter_bank_sqrt_params;

/* SignalPCAN: per-channel automatic gain control from the noise estimate and a gain table. */
typedef struct {
    int32_t size, snr_shift;
    const int16_t *gain_lut;
} mf_signal_pcan_params;

/* SignalFilterBankLog: out[i] = min(INT16_MAX, log(in[i] << correction_bits) * output_scale). */
typedef struct {
    int32_t size, correction_bits;
    uint32_t output_scale;
} mf_signal_filter_bank_log_params;

/* SignalRfft (int16): TFLM's fixed-point kiss_fftr per frame of input_length values, zero-padded
 * to fft_length (a power of two), giving fft_length / 2 + 1 (re, im) bins. Each butterfly stage
 * divides by its radix as kissfft's FIXED_POINT build does. The tables are made at compile time:
 * twiddles (fft_length / 2 complex), super_twiddles (fft_length / 4), the radices (factors). The
 * scratch holds the padded frame and the complex FFT: 2 * fft_length int16. */
typedef struct {
    int32_t frames, input_length, fft_length;
    const int16_t *twiddles, *super_twiddles;
    const int32_t *factors;
} mf_signal_rfft_params;

void mf_signal_rfft_s16(const mf_signal_rfft_params *p, const int16_t *in, int16_t *out, void *scratch);
void mf_signal_window_s16(const mf_signal_window_params *p, const int16_t *in, int16_t *out);
void mf_signal_fft_auto_scale_s16(const mf_signal_fft_auto_scale_params *p, const int16_t *in, int16_t *out,
                                  int32_t *scale_bits);
void mf_signal_energy_s16(const mf_signal_energy_params *p, const int16_t *in, uint32_t *out);
void mf_signal_filter_bank_u32(const mf_signal_filter_bank_params *p, const uint32_t *in, uint64_t *out);
void mf_signal_filter_bank_sqrt_u64(const mf_signal_filter_bank_sqrt_params *p, const uint64_t *in,
                                    const int32_t *scale_bits, uint32_t *out);
void mf_signal_pcan_u32(const mf_signal_pcan_params *p, const uint32_t *in, const uint32_t *noise,
                        uint32_t *out);
void mf_signal_filter_bank_log_u32(const mf_signal_filter_bank_log_params *p, const uint32_t *in, int16_t *out);

#endif /* MF_SIGNAL_H */
