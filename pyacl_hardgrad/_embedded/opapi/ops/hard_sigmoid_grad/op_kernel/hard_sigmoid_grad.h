/*
 * HardsigmoidBackward's element math, shared by its scalar kernels and the scalar tails of
 * its SIMD kernels.  In fp32, two roundings (no FMA): t = s/6 + 0.5; r = g/6;
 * res = 0 < t < 1 ? r : +0; res is rounded to the promoted dtype (fp16 RNE, bf16 ties away)
 * and then cast to out's dtype (hg_elem.h's Cast step).
 */
#ifndef PYACL_HARDGRAD_OPS_HARD_SIGMOID_GRAD_H_
#define PYACL_HARDGRAD_OPS_HARD_SIGMOID_GRAD_H_

#include "hg_elem.h"

#define HG_SIXTH (1.0f / 6.0f)

static inline float hg_hardsigmoid_grad(float g, float s)
{
    float t = s * HG_SIXTH;
    t = t + 0.5f;
    float r = g * HG_SIXTH;
    return hg_bits_f32(hg_f32_bits(r) & hg_mask32((t > 0.0f) & (t < 1.0f)));
}

/* hg_hardsigmoid_grad keeps r exactly for HG_HS_KEEP_MIN <= s <= HG_HS_KEEP_MAX (and never for
 * NaN): t rises monotonically with s under round-to-nearest, so its 0 < t < 1 test is one
 * interval of s.  The bounds were found, and the equivalence checked, over all 2^32 fp32
 * inputs; SIMD kernels compare s against them instead of computing t. */
#define HG_HS_KEEP_MIN (-0x1.7ffffep+1f)   /* the float just above -3 */
#define HG_HS_KEEP_MAX (0x1.7ffffcp+1f)    /* two floats below 3 */
/* The same interval on the 16-bit words (all 65536 checked): |s| < 3, i.e. the word without
 * its sign bit below that of 3.0 (NaN words lie above it). */
#define HG_HS_KEEP_F16_ABS_LT 0x4200
#define HG_HS_KEEP_BF16_ABS_LT 0x4040

/* Rounding of the fp32 result to the promoted dtype P (kept as fp32). */
#define HS_RT_F32(r) HG_RT_F32_RNE(r)
#define HS_RT_F16(r) HG_RT_F16_RNE(r)
#define HS_RT_BF16(r) HG_RT_BF16_RNA(r)
/* result -> promoted P -> out O */
#define HS_ST(P, O, r) HG_CAST_##P##_##O(HS_RT_##P(r))

#endif /* PYACL_HARDGRAD_OPS_HARD_SIGMOID_GRAD_H_ */
