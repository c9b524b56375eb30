/* Hardsigmoid's SIMD kernels over hg_simd.h's primitives (float dtypes; INT32 is portable only). */
#include "hg_simd.h"
#include "hard_sigmoid.h"

static inline hgv v_affine(hgv x)
{
    return hgv_add(hgv_mul(x, hgv_set1(HG_HSIG_ALPHA)), hgv_set1(0.5f));
}

static inline hgv v_clamp(hgv t)
{
    return hgv_max(hgv_set1(0.0f), hgv_min(hgv_set1(1.0f), t));
}

HGS_EW1_KERNEL(k_F32, F32, F32, HGV_ST_F32_RNE, v_clamp(v_affine(a)), hg_hsig_clamp(hg_hsig_affine(a)))
HGS_EW1_KERNEL(k_F16, F16, F16, HGV_ST_F16_RNE, v_clamp(hgv_rt_f16_rne(v_affine(a))),
               HG_ST_F16_RNE(hg_hsig_clamp(HG_RT_F16_RNE(hg_hsig_affine(a)))))
HGS_EW1_KERNEL(k_BF16, BF16, BF16, HGV_ST_BF16_RNA, v_clamp(hgv_rt_bf16_rna(v_affine(a))),
               HG_ST_BF16_RNA(hg_hsig_clamp(HG_RT_BF16_RNA(hg_hsig_affine(a)))))

const hg_kernel_entry HG_SIMD_SYM(hg_hard_sigmoid)[] = {
    HG_ROW1(F32, F32, k_F32),
    HG_ROW1(F16, F16, k_F16),
    HG_ROW1(BF16, BF16, k_BF16),
    HG_ROW_END,
};
