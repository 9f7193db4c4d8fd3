/* A global AVERAGE_POOL_2D int8 summed a band of rows at a time (mf_cascade.h). */
#include "mf_cascade.h"
#include "mf_isa.h"

/* Pixels whose int8 values an int16 lane sums without overflow: 256 * -128 = -32768. */
#define MF_ROWSUM_SPAN 256

/* Four channels (c, c + 1, c + 2, c + 3) of n <= MF_ROWSUM_SPAN pixels `step` bytes apart:
 * one word a pixel, its even and odd bytes added into int16 lanes (two SXTAB16). */
static void mf_rowsum_quad(const int8_t *px, int32_t n, int32_t step, int32_t *sums)
{
    uint32_t even = 0, odd = 0;
    int32_t i;
    for (i = 0; i < n; i++, px += step) {
        const uint32_t v = mf_load32(px);
        even = mf_sxtab16(even, v);
        odd = mf_sxtab16_ror8(odd, v);
    }
    sums[0] += (int16_t)(even & 0xFFFFu);
    sums[1] += (int16_t)(odd & 0xFFFFu);
    sums[2] += (int16_t)(even >> 16);
    sums[3] += (int16_t)(odd >> 16);
}

void mf_rowsum_s8(const mf_rowsum_s8_params *p, const int8_t *input, int8_t *output, void *scratch)
{
    int32_t *sums = (int32_t *)scratch;
    const int32_t ch = p->channels, quads = ch & ~3;
    int32_t i0, i, c;
    if (p->start) {
        for (c = 0; c < ch; c++) {
            sums[c] = 0;
        }
    }
    for (i0 = 0; i0 < p->pixels; i0 += MF_ROWSUM_SPAN) {
        const int8_t *rows = input + i0 * ch;
        const int32_t n = MF_MIN(p->pixels - i0, MF_ROWSUM_SPAN);
        for (c = 0; c < quads; c += 4) {
            mf_rowsum_quad(rows + c, n, ch, sums + c);
        }
        for (c = quads; c < ch; c++) {
            for (i = 0; i < n; i++) {
                sums[c] += rows[i * ch + c];
            }
        }
    }
    if (!p->finish) {
        return;
    }
    for (c = 0; c < ch; c++) {
        const int32_t s = sums[c];
        /* Round half away from zero; C division truncates toward zero. */
        int32_t v = s > 0 ? (s + p->count / 2) / p->count : (s - p->count / 2) / p->count;
        output[c] = (int8_t)MF_CLAMP(v, p->act_min, p->act_max);
    }
}
