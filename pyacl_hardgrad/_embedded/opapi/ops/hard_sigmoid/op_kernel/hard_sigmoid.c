/* Hardsigmoid's portable kernels, self and out of one dtype (FLOAT, FLOAT16, BF16, INT32). */
#include "hard_sigmoid.h"

HG_EW1_KERNEL(k_F32, F32, F32, hg_hsig_clamp(hg_hsig_affine(a)))
HG_EW1_KERNEL(k_F16, F16, F16, HG_ST_F16_RNE(hg_hsig_clamp(HG_RT_F16_RNE(hg_hsig_affine(a)))))
HG_EW1_KERNEL(k_BF16, BF16, BF16, HG_ST_BF16_RNA(hg_hsig_clamp(HG_RT_BF16_RNA(hg_hsig_affine(a)))))

static void k_I32(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end)
{
    const int32_t *x = in[0];
    int32_t *o = out;
    (void)p;
    for (size_t i = begin; i < end; i++) {
        o[i] = hg_f32_to_i32_trunc(hg_hsig_clamp(hg_hsig_affine(hg_i32_to_f32_rint(x[i]))));
    }
}

const hg_kernel_entry hg_hard_sigmoid_scalar[] = {
    HG_ROW1(F32, F32, k_F32),
    HG_ROW1(F16, F16, k_F16),
    HG_ROW1(BF16, BF16, k_BF16),
    HG_ROW1(I32, I32, k_I32),
    HG_ROW_END,
};
