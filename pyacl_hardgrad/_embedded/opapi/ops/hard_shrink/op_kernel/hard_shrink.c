/* Hardshrink's portable kernels: one per (self, out) float dtype pair. */
#include "hard_shrink.h"

#define SAME(T, W, LD)                                                                             \
    static void same_##T(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end) \
    {                                                                                              \
        const W *x = in[0];                                                                        \
        W *o = out;                                                                                \
        for (size_t i = begin; i < end; i++) {                                                     \
            o[i] = (W)(x[i] & hg_mask32(hg_hshr_keep(LD(x[i]), p->f[0])));                         \
        }                                                                                          \
    }
SAME(F32, uint32_t, hg_bits_f32)
SAME(F16, uint16_t, hg_f16_to_f32)
SAME(BF16, uint16_t, hg_bf16_to_f32)

#define CAST(S, O) HG_EW1_KERNEL(cast_##S##_##O, S, O, HG_CAST_##S##_##O(hg_hshr_keep(a, p->f[0]) ? a : 0.0f))
CAST(F32, F16) CAST(F32, BF16) CAST(F16, F32) CAST(F16, BF16) CAST(BF16, F32) CAST(BF16, F16)

const hg_kernel_entry hg_hard_shrink_scalar[] = {
    HG_ROW1(F32, F32, same_F32),
    HG_ROW1(F16, F16, same_F16),
    HG_ROW1(BF16, BF16, same_BF16),
    HG_ROW1(F32, F16, cast_F32_F16),
    HG_ROW1(F32, BF16, cast_F32_BF16),
    HG_ROW1(F16, F32, cast_F16_F32),
    HG_ROW1(F16, BF16, cast_F16_BF16),
    HG_ROW1(BF16, F32, cast_BF16_F32),
    HG_ROW1(BF16, F16, cast_BF16_F16),
    HG_ROW_END,
};
