/*
 * aclnnHardswishBackwardV2's element math (op_kernel/arch35 of CANN's ops-nn), shared by its scalar kernels and
 * the scalar tails of its SIMD kernels.  All in fp32 (fp16/bf16 widened exactly):
 *   d = self * 0.33333334f; d = d + 0.5f (two roundings);
 *   d = 0 where not (self > -3); d = 1 where not (self < 3) (open middle interval);
 *   out = gradOutput * d, narrowed to the dtype with CAST_RINT (round to nearest even).
 * A NaN self fails both tests, so d = 1 and out = gradOutput.
 */
#ifndef PYACL_HARDGRAD_OPS_HARD_SWISH_GRAD_V2_H_
#define PYACL_HARDGRAD_OPS_HARD_SWISH_GRAD_V2_H_

#include "hg_elem.h"

#define HG_THIRD 0.33333334f   /* 1/3 as fp32 (0x3eaaaaab) */

static inline float hg_hard_swish_grad_v2(float g, float x)
{
    float d = x * HG_THIRD;
    d = d + 0.5f;
    d = hg_select_f32(x > -3.0f, d, 0.0f);
    d = hg_select_f32(x < 3.0f, d, 1.0f);
    return g * d;
}

#endif /* PYACL_HARDGRAD_OPS_HARD_SWISH_GRAD_V2_H_ */
