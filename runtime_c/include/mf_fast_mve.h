/* microfuse runtime: the Helium (MVE, Cortex-M55) paths of the fast int8 kernels (mf_fast.h).
 *
 * Included by mf_fast.h; compiled only when __ARM_FEATURE_MVE has its integer bit (MF_MVE). Same
 * table, same int32 values as the DSP and portable paths:
 *
 * - mf_mve_requant4: the shortcut requantization of mf_fast.h on four lanes at once, bit-identical
 *   to the scalar SMMLAR sequence: VRMULH gives (x m + 2^31) >> 32, and SMMLAR's accumulator is
 *   added to that high half exactly (adding acc 2^32 does not touch the low word); the sign term,
 *   the arithmetic right shift (VSHL by a negative count does not round) and the int8 saturation
 *   follow as in the scalar code. Integer adds wrap like the scalar ones (and the lowering has
 *   proven that they do not overflow).
 *
 * - mf_mve_finish_addsub, mf_mve_finish_clamp: the finishing passes of a staged unit (a fused
 *   residual ADD / SUB with the shortcut rescalings, four elements a step; the clamp alone,
 *   sixteen a step).
 *
 * The blocked dot product is in mf_gemm_mve.h, the depthwise path in mf_dwconv2d_s8_mve.h. Each
 * keeps the access order of the function it replaces. */
#ifndef MF_FAST_MVE_H
#define MF_FAST_MVE_H

#if MF_MVE
#include <arm_mve.h>

/* The four int32 lanes of acc requantized with table block qb (mf_fast.h), saturated to int8. */
MF_INLINE int32x4_t mf_mve_requant4(int32x4_t acc, const int32_t *qb, int32_t lshift)
{
    const int32x4_t xs = vshlq_r_s32(acc, lshift);
    int32x4_t r = vaddq_s32(vrmulhq_s32(xs, vldrwq_s32(qb + MF_Q_MULT)), vldrwq_s32(qb + MF_Q_ROUND));
    r = vaddq_s32(r, vshrq_n_s32(xs, 31));
    r = vshlq_s32(r, vnegq_s32(vldrwq_s32(qb + MF_Q_RSHIFT)));
    return vminq_s32(vmaxq_s32(r, vdupq_n_s32(-128)), vdupq_n_s32(127));
}

/* (x << lshift) * mult rounded, divided by 2^rshift (mf_fast_scale) on four lanes. */
MF_INLINE int32x4_t mf_mve_scale(int32x4_t x, int32_t lshift, int32x4_t mult, int32_t rnd, int32_t rshift)
{
    const int32x4_t xs = vshlq_r_s32(x, lshift);
    const int32x4_t r = vaddq_s32(vaddq_n_s32(vrmulhq_s32(xs, mult), rnd), vshrq_n_s32(xs, 31));
    return vshlq_r_s32(r, -rshift);
}

/* The constants of a residual ADD / SUB / RSUB step, in registers (the stores through int8_t
 * pointers would otherwise make the compiler reload them from the structs at every step). */
typedef struct {
    int32x4_t vm, rm, om, lo, hi, olo, ohi;
    int32_t v_off, r_off, vl, vr, vn, rl, rr, rn, ol, orr, on;
} mf_mve_addsub;

/* One step: elements j .. j+3 (the lanes of p only, when `tail`); `kind` and `clamp` constants
 * (without the clamp the staged int8 values need none: two vector registers fewer in the loop). */
MF_INLINE void mf_mve_addsub_step(const mf_mve_addsub *c, int kind, int clamp, const int8_t *stage,
                                  const int8_t *res, int8_t *out, int32_t j, int tail,
                                  mve_pred16_t p)
{
    int32x4_t v = tail ? vldrbq_z_s32(stage + j, p) : vldrbq_s32(stage + j);
    int32x4_t r = tail ? vldrbq_z_s32(res + j, p) : vldrbq_s32(res + j), o;
    if (clamp) {
        v = vminq_s32(vmaxq_s32(v, c->lo), c->hi);
    }
    v = mf_mve_scale(vaddq_n_s32(v, c->v_off), c->vl, c->vm, c->vr, c->vn);
    r = mf_mve_scale(vaddq_n_s32(r, c->r_off), c->rl, c->rm, c->rr, c->rn);
    o = kind == MF_EP_ADDQ ? vaddq_s32(v, r) : kind == MF_EP_SUBQ ? vsubq_s32(v, r) : vsubq_s32(r, v);
    o = vminq_s32(vmaxq_s32(mf_mve_scale(o, c->ol, c->om, c->orr, c->on), c->olo), c->ohi);
    if (tail) {
        vstrbq_p_s32(out + j, o, p);
    } else {
        vstrbq_s32(out + j, o);
    }
}

/* The steps of one pass, `kind` a constant: four elements each; the last count % 4 elements a
 * predicated step (lanes past count do not access memory). Reversed, the steps run last to
 * first, the partial one first. Within a step the four residual elements are read, then the
 * four outputs stored (reading ahead of a later-processed element is allowed: plan/inplace.py). */
MF_INLINE void mf_mve_addsub_pass(const mf_mve_addsub *c, int kind, int clamp, const int8_t *stage,
                                  int32_t count, const int8_t *res, int8_t *out, int reverse)
{
    const int32_t full = count / 4, rest = count % 4;
    const mve_pred16_t p = vctp32q((uint32_t)rest);
    int32_t k;
    if (reverse) {
        if (rest) {
            mf_mve_addsub_step(c, kind, clamp, stage, res, out, 4 * full, 1, p);
        }
        for (k = full - 1; k >= 0; k--) {
            mf_mve_addsub_step(c, kind, clamp, stage, res, out, 4 * k, 0, p);
        }
        return;
    }
    for (k = 0; k < full; k++) {
        mf_mve_addsub_step(c, kind, clamp, stage, res, out, 4 * k, 0, p);
    }
    if (rest) {
        mf_mve_addsub_step(c, kind, clamp, stage, res, out, 4 * full, 1, p);
    }
}

/* mf_fast_finish_addsub on Helium (same arguments and results). */
MF_INLINE void mf_mve_finish_addsub(const int8_t *stage, int32_t count, int clamp, int32_t lo,
                                    int32_t hi, const mf_epilogue_s8 *e, const mf_fast_addsub *a,
                                    int kind, const int8_t *res, int8_t *out, int reverse)
{
    mf_mve_addsub c;
    c.vm = vdupq_n_s32(a->v_mult);
    c.rm = vdupq_n_s32(a->r_mult);
    c.om = vdupq_n_s32(a->o_mult);
    c.lo = vdupq_n_s32(clamp ? lo : -128);
    c.hi = vdupq_n_s32(clamp ? hi : 127);
    c.olo = vdupq_n_s32(e->act_min);
    c.ohi = vdupq_n_s32(e->act_max);
    c.v_off = e->v_offset;
    c.r_off = e->r_offset;
    c.vl = a->v_lshift;
    c.vr = a->v_round;
    c.vn = a->v_rshift;
    c.rl = a->r_lshift;
    c.rr = a->r_round;
    c.rn = a->r_rshift;
    c.ol = a->o_lshift;
    c.orr = a->o_round;
    c.on = a->o_rshift;
    if (kind == MF_EP_ADDQ && !clamp) {
        mf_mve_addsub_pass(&c, MF_EP_ADDQ, 0, stage, count, res, out, reverse);
    } else if (kind == MF_EP_ADDQ) {
        mf_mve_addsub_pass(&c, MF_EP_ADDQ, 1, stage, count, res, out, reverse);
    } else if (kind == MF_EP_SUBQ) {
        mf_mve_addsub_pass(&c, MF_EP_SUBQ, 1, stage, count, res, out, reverse);
    } else {
        mf_mve_addsub_pass(&c, MF_EP_RSUBQ, 1, stage, count, res, out, reverse);
    }
}

/* The finishing pass of a stage without epilogue (the activation's clamp only): sixteen values a
 * step, the last step predicated. No residual is read, so the order does not matter. */
MF_INLINE void mf_mve_finish_clamp(const int8_t *stage, int32_t count, int32_t lo, int32_t hi,
                                   int8_t *out)
{
    const int8x16_t lo16 = vdupq_n_s8((int8_t)lo), hi16 = vdupq_n_s8((int8_t)hi);
    int32_t j;
    for (j = 0; j < count; j += 16) {
        const mve_pred16_t p = vctp8q((uint32_t)(count - j));
        vstrbq_p_s8(out + j, vminq_s8(vmaxq_s8(vldrbq_z_s8(stage + j, p), lo16), hi16), p);
    }
}
#endif

#endif /* MF_FAST_MVE_H */
