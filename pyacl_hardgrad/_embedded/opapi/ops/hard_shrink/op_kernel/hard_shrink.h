/*
 * Hardshrink's element math (op_kernel/arch35/hard_shrink.h of ops-nn), shared by its scalar
 * kernels and the scalar tails of its SIMD kernels: out = 0 (+0) where |x| <= lambd, else x;
 * fp16/bf16 widened to fp32 and compared with the fp32 lambd (p->f[0]).  The result is a
 * selected input or +0, so with one dtype the self word is copied bit for bit; another out
 * dtype gets the Cast step.  NaN and +-inf are not <= lambd: they pass through.
 */
#ifndef PYACL_HARDGRAD_OPS_HARD_SHRINK_H_
#define PYACL_HARDGRAD_OPS_HARD_SHRINK_H_

#include "hg_elem.h"

static inline int hg_hshr_keep(float x, float lambd)
{
    return !(fabsf(x) <= lambd);
}

#endif /* PYACL_HARDGRAD_OPS_HARD_SHRINK_H_ */
