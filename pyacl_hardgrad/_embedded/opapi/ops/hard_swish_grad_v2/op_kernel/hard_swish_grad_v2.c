/* aclnnHardswishBackwardV2's portable kernels: gradOutput, self and out of one float dtype. */
#include "hard_swish_grad_v2.h"

#define K(T) HG_EW2_KERNEL(k_##T, T, T, T, HG_ST_##T##_RNE(hg_hard_swish_grad_v2(a, b)))
HG_FOR_EACH_FLOAT(K)

const hg_kernel_entry hg_hard_swish_grad_v2_scalar[] = {
    HG_ROW2(F32, F32, F32, k_F32),
    HG_ROW2(F16, F16, F16, k_F16),
    HG_ROW2(BF16, BF16, BF16, k_BF16),
    HG_ROW_END,
};
