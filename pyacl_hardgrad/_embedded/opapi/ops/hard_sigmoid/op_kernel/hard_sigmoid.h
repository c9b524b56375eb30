/*
 * Hardsigmoid's element math (op_api/hardsigmoid.cpp attrs alpha = 1/6, beta = 0.5 and
 * op_kernel/arch35/hard_sigmoid.cpp of ops-nn), shared by its scalar kernels and the scalar
 * tails of its SIMD kernels:
 *   t = x * (1.0f/6.0f); t = t + 0.5f (fp32, two roundings);
 *   FLOAT:   min(t, 1), then max(t, 0);
 *   FLOAT16: t narrowed with CAST_RINT, then clamped to [0, 1] in fp16;
 *   BF16:    t narrowed with CAST_ROUND, then clamped in bf16;
 *   INT32:   x -> fp32 (CAST_RINT), the FLOAT steps, back with CAST_TRUNC (0 or 1).
 * min/max keep a NaN (hg_min_f32(1, t) is t for a NaN t), as CANN's golden model does.
 */
#ifndef PYACL_HARDGRAD_OPS_HARD_SIGMOID_H_
#define PYACL_HARDGRAD_OPS_HARD_SIGMOID_H_

#include "hg_elem.h"

#define HG_HSIG_ALPHA (1.0f / 6.0f)

static inline float hg_hsig_affine(float x)
{
    float t = x * HG_HSIG_ALPHA;
    return t + 0.5f;
}

static inline float hg_hsig_clamp(float t)
{
    return hg_max_f32(0.0f, hg_min_f32(1.0f, t));
}

#endif /* PYACL_HARDGRAD_OPS_HARD_SIGMOID_H_ */
