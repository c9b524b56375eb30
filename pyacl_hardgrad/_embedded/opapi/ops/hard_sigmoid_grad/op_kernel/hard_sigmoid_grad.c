/*
 * HardsigmoidBackward's portable kernels: one per (gradOutput, self, out) dtype triple,
 * generated from the promotion list of hg_elem.h.
 */
#include "hard_sigmoid_grad.h"

#define HS_KERNEL(G, S, P, O) \
    HG_EW2_KERNEL(hs_##G##_##S##_##O, G, S, O, HS_ST(P, O, hg_hardsigmoid_grad(a, b)))
#define HS_KERNELS(G, S, P) HS_KERNEL(G, S, P, F32) HS_KERNEL(G, S, P, F16) HS_KERNEL(G, S, P, BF16)
HG_FOR_EACH_FLOAT_PAIR(HS_KERNELS)

#define HS_ROWS(G, S, P) \
    HG_ROW2(G, S, F32, hs_##G##_##S##_F32), HG_ROW2(G, S, F16, hs_##G##_##S##_F16), HG_ROW2(G, S, BF16, hs_##G##_##S##_BF16),

const hg_kernel_entry hg_hard_sigmoid_grad_scalar[] = {
    HG_FOR_EACH_FLOAT_PAIR(HS_ROWS)
    HG_ROW_END,
};
