/* Hardswish's SIMD kernels over hg_simd.h's primitives, self and out of one dtype (a cast to
 * another out dtype uses the portable kernels). */
#include "hg_simd.h"
#include "hard_swish.h"

static inline hgv v_hardswish(hgv x)
{
    hgv t = hgv_add(x, hgv_set1(3.0f));
    t = hgv_min(hgv_set1(6.0f), t);
    t = hgv_max(hgv_set1(0.0f), t);
    hgv m = hgv_max(hgv_set1(-3.0f), x);
    return hgv_mul(hgv_mul(m, t), hgv_set1(HG_HSW_SIXTH));
}

#define K(T) HGS_EW1_KERNEL(k_##T, T, T, HGV_ST_##T##_RNA, v_hardswish(a), HG_ST_##T##_RNA(hg_hardswish(a)))
HG_FOR_EACH_FLOAT(K)

const hg_kernel_entry HG_SIMD_SYM(hg_hard_swish)[] = {
    HG_ROW1(F32, F32, k_F32),
    HG_ROW1(F16, F16, k_F16),
    HG_ROW1(BF16, BF16, k_BF16),
    HG_ROW_END,
};
