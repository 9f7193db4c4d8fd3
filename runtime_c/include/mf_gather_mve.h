/* microfuse runtime: the Helium path of mf_gemm_gather (mf_conv2d_s8_gemm_body.h), the window
 * of a convolution on in_c % 4 != 0 channels (a first layer on 1 or 3 channels) copied into a
 * stack buffer.
 *
 * When a window row is at most 16 values (k_w * in_c <= 16, horizontal dilation 1) each row is
 * one predicated load and one predicated store: the lanes of taps inside the image are read
 * (VLDRB.8 under a predicate: the other lanes access no memory), those outside take the input
 * zero point (VPSEL), and k_w * in_c lanes are stored; a row outside the image is the zero
 * point. The same bytes as the portable copy, without its tap-by-tap loop at the borders.
 * Access order: reads of the pixel's window only, writes to the stack buffer only. */
#ifndef MF_GATHER_MVE_H
#define MF_GATHER_MVE_H

#if MF_MVE
#include <arm_mve.h>

/* The window at input rows `rows` (NULL outside the image), first column x0 -> buf, as
 * mf_gemm_gather; 0 (nothing written) when the rows do not fit a vector. */
MF_INLINE int mf_gather_mve(int32_t k_h, int32_t k_w, int32_t c, int32_t in_w, int32_t dilation_w,
                            int32_t zero_point, const int8_t *const *rows, int32_t x0, int8_t *buf)
{
    const int32_t run = k_w * c;
    const int32_t lo = MF_CLAMP(-x0, 0, k_w) * c, hi = MF_CLAMP(in_w - x0, 0, k_w) * c;
    const mve_pred16_t all = vctp8q((uint32_t)run);
    const mve_pred16_t in = (mve_pred16_t)(vctp8q((uint32_t)hi) & ~vctp8q((uint32_t)lo));
    const int8x16_t zp = vdupq_n_s8((int8_t)zero_point);
    int32_t ky;
    if (dilation_w != 1 || run > 16) {
        return 0;
    }
    for (ky = 0; ky < k_h; ky++, buf += run) {
        int8x16_t v = zp;
        if (rows[ky] != NULL) {
            const int8_t *at = (const int8_t *)((uintptr_t)rows[ky] + (uintptr_t)(x0 * c));
            v = vpselq_s8(vldrbq_z_s8(at, in), zp, in);
        }
        vstrbq_p_s8(buf, v, all);
    }
    return 1;
}
#endif

#endif /* MF_GATHER_MVE_H */
