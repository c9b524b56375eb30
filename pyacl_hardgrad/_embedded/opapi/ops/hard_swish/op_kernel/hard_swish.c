/* Hardswish's portable kernels: one per (self, out) float dtype pair. */
#include "hard_swish.h"

#define HSW(S, O) HG_EW1_KERNEL(k_##S##_##O, S, O, HG_CAST_##S##_##O(HG_RT_##S##_RNA(hg_hardswish(a))))
#define HSW3(S) HSW(S, F32) HSW(S, F16) HSW(S, BF16)
HG_FOR_EACH_FLOAT(HSW3)

#define ROWS(S) HG_ROW1(S, F32, k_##S##_F32), HG_ROW1(S, F16, k_##S##_F16), HG_ROW1(S, BF16, k_##S##_BF16),

const hg_kernel_entry hg_hard_swish_scalar[] = {
    HG_FOR_EACH_FLOAT(ROWS)
    HG_ROW_END,
};
