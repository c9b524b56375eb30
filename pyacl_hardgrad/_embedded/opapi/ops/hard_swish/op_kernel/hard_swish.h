/*
 * Hardswish's element math (op_kernel/arch35/hard_swish.h of ops-nn), shared by its scalar
 * kernels and the scalar tails of its SIMD kernels, all in fp32 (fp16/bf16 widened):
 *   t = x + 3; t = min(t, 6); t = max(t, 0); m = max(x, -3); y = m * t; y = y * (1.0f/6.0f)
 * then narrowed to self's dtype with CAST_ROUND (ties away) and cast to out's dtype.  The
 * divide is a multiply by the fp32 constant 1/6, so x >= 3 gives x * 6 * (1/6f); m makes
 * x = -inf give -0.0 (not NaN), and x <= -3 gives (-3) * (+0) = -0.0.  min/max keep a NaN.
 */
#ifndef PYACL_HARDGRAD_OPS_HARD_SWISH_H_
#define PYACL_HARDGRAD_OPS_HARD_SWISH_H_

#include "hg_elem.h"

#define HG_HSW_SIXTH (1.0f / 6.0f)

static inline float hg_hardswish(float x)
{
    float t = x + 3.0f;
    t = hg_min_f32(6.0f, t);
    t = hg_max_f32(0.0f, t);
    float m = hg_max_f32(-3.0f, x);
    float y = m * t;
    return y * HG_HSW_SIXTH;
}

#endif /* PYACL_HARDGRAD_OPS_HARD_SWISH_H_ */
