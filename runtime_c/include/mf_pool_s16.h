/* microfuse runtime: int16 AVERAGE_POOL_2D, MAX_POOL_2D and MEAN ("16x8" models), bit-exact with
 * TFLite Micro's int16 paths, which are its int8 arithmetic on int16 values: window sums in int32
 * rounded half away from zero, the maximum from INT16_MIN, MEAN's requantized sum. */
#ifndef MF_POOL_S16_H
#define MF_POOL_S16_H

#include "mf_data.h"
#include "mf_pool.h"

void mf_pool_avg_s16(const mf_pool_s8_params *p, const int16_t *input, int16_t *output);
void mf_pool_max_s16(const mf_pool_s8_params *p, const int16_t *input, int16_t *output);
void mf_mean_s16(const mf_mean_params *p, const int16_t *in, int16_t *out);

#endif /* MF_POOL_S16_H */
