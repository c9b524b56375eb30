/*
 * HardtanhBackward's element math, shared by its scalar kernels and the scalar tails of its
 * SIMD kernels: out = gradOutput (bit copy) where lo < self < hi or self is NaN, else +0.
 * Parameters: p->f[0] = lo (min), p->f[1] = hi (max).
 */
#ifndef PYACL_HARDGRAD_OPS_HARDTANH_GRAD_H_
#define PYACL_HARDGRAD_OPS_HARDTANH_GRAD_H_

#include "hg_elem.h"

static inline uint32_t hg_ht_keep_mask(float s, float lo, float hi)
{
    return hg_mask32(((s > lo) & (s < hi)) | (s != s));
}

/* Bounds for SIMD keep tests written as "not s <= lo and not s >= hi" (NaN s kept without
 * a separate test): equal to the rule above for any non-NaN bounds, and a NaN bound (keep
 * NaN s only) becomes lo = +inf, hi = -inf, which gives the same. */
static inline void hg_ht_unordered_bounds(float *lo, float *hi)
{
    if (*lo != *lo || *hi != *hi) {
        *lo = INFINITY;
        *hi = -INFINITY;
    }
}

#endif /* PYACL_HARDGRAD_OPS_HARDTANH_GRAD_H_ */
