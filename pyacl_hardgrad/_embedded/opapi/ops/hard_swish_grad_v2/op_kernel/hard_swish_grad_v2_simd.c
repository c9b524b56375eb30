/* aclnnHardswishBackwardV2's SIMD kernels over hg_simd.h's primitives (compiled once per path). */
#include "hg_simd.h"
#include "hard_swish_grad_v2.h"

static inline hgv v_hard_swish_grad_v2(hgv g, hgv x)
{
    hgv d = hgv_add(hgv_mul(x, hgv_set1(HG_THIRD)), hgv_set1(0.5f));
    d = hgv_sel(hgv_gt(x, hgv_set1(-3.0f)), d, hgv_set1(0.0f));
    d = hgv_sel(hgv_lt(x, hgv_set1(3.0f)), d, hgv_set1(1.0f));
    return hgv_mul(g, d);
}

#define K(T) HGS_EW2_KERNEL(k_##T, T, T, T, HGV_ST_##T##_RNE, v_hard_swish_grad_v2(a, b), HG_ST_##T##_RNE(hg_hard_swish_grad_v2(a, b)))
HG_FOR_EACH_FLOAT(K)

const hg_kernel_entry HG_SIMD_SYM(hg_hard_swish_grad_v2)[] = {
    HG_ROW2(F32, F32, F32, k_F32),
    HG_ROW2(F16, F16, F16, k_F16),
    HG_ROW2(BF16, BF16, BF16, k_BF16),
    HG_ROW_END,
};
