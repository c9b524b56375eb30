/*
 * Per-element math of the two kernels, shared by the portable kernels (kernels.c) and
 * the scalar tails of the SIMD kernels, so every path rounds exactly the same way.
 */
#ifndef PYACL_HARDGRAD_OPAPI_KERNEL_MATH_H_
#define PYACL_HARDGRAD_OPAPI_KERNEL_MATH_H_

#include <math.h>
#include <stdint.h>

#include "convert.h"
#include "opapi_common.h"

#define HG_SIXTH (1.0f / 6.0f)

/* HardtanhBackward keeps gradOutput where lo < self < hi or self is NaN. */
static inline uint32_t hg_keep_mask32(float s, float lo, float hi)
{
    int keep = ((s > lo) & (s < hi)) | (s != s);   /* no branches: random data would mispredict */
    return (uint32_t)0 - (uint32_t)keep;
}

/* Bounds for SIMD keep tests written as "not s <= lo and not s >= hi" (unordered compares,
 * NaN s kept without a separate test): equal to the rule above for any non-NaN bounds, and
 * a NaN bound (keep NaN s only) becomes lo = +inf, hi = -inf, which gives the same. */
static inline void hg_ht_unordered_bounds(float *lo, float *hi)
{
    if (*lo != *lo || *hi != *hi) {
        *lo = INFINITY;
        *hi = -INFINITY;
    }
}

/* HardsigmoidBackward in fp32, two roundings (no FMA): t = s/6 + 0.5; r = g/6; 0 < t < 1 ? r : +0. */
static inline float hg_hardsigmoid_grad(float g, float s)
{
    float t = s * HG_SIXTH;
    t = t + 0.5f;
    float r = g * HG_SIXTH;
    uint32_t keep = (uint32_t)0 - (uint32_t)((t > 0.0f) & (t < 1.0f));   /* branch-free select */
    return hg_bits_f32(hg_f32_bits(r) & keep);
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

/* Element loaders: raw storage word -> fp32. */
#define HG_LD_F32(x) (x)
#define HG_LD_F16(x) hg_f16_to_f32(x)
#define HG_LD_BF16(x) hg_bf16_to_f32(x)

/* Result stores: fp32 result -> promoted dtype -> out dtype (named HG_ST_<promoted>_<out>). */
#define HG_ST_F32_F32(r) (r)
#define HG_ST_F32_F16(r) hg_f32_to_f16(r)
#define HG_ST_F32_BF16(r) hg_f32_to_bf16(r)
#define HG_ST_F16_F16(r) hg_f32_to_f16(r)
#define HG_ST_F16_F32(r) hg_f16_to_f32(hg_f32_to_f16(r))
#define HG_ST_F16_BF16(r) hg_f32_to_bf16(hg_f16_to_f32(hg_f32_to_f16(r)))
#define HG_ST_BF16_BF16(r) hg_f32_to_bf16(r)
#define HG_ST_BF16_F32(r) hg_bf16_to_f32(hg_f32_to_bf16(r))
#define HG_ST_BF16_F16(r) hg_f32_to_f16(hg_bf16_to_f32(hg_f32_to_bf16(r)))

typedef float hg_T_F32;
typedef uint16_t hg_T_F16;
typedef uint16_t hg_T_BF16;

/* The nine (gradOutput, self, promoted) triples, X(G, S, P). */
#define HG_FOR_EACH_INPUT_PAIR(X) \
    X(F32, F32, F32)              \
    X(F16, F16, F16)              \
    X(BF16, BF16, BF16)           \
    X(F16, F32, F32)              \
    X(F32, F16, F32)              \
    X(BF16, F32, F32)             \
    X(F32, BF16, F32)             \
    X(F16, BF16, F32)             \
    X(BF16, F16, F32)

/* 0, 1, 2 for FLOAT, FLOAT16, BF16 (the kernel tables' index); -1 otherwise. */
static inline int hg_kernel_dtype_index(aclDataType d)
{
    switch (d) {
    case ACL_FLOAT: return 0;
    case ACL_FLOAT16: return 1;
    case ACL_BF16: return 2;
    default: return -1;
    }
}

#endif /* PYACL_HARDGRAD_OPAPI_KERNEL_MATH_H_ */
