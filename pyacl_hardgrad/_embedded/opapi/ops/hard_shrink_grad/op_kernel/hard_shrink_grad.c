/*
 * HardshrinkBackward's portable kernels: one per (gradOutput, self, gradInput) dtype triple,
 * generated from the promotion list of hg_elem.h; gradOutput and self were staged to
 * gradInput's shape (broadcast) by the shared pipeline.
 */
#include "hard_shrink_grad.h"

/* Same dtype throughout: a bit copy of the selected gradOutput word. */
#define HSG_SAME(T, W, LD)                                                                        \
    static void same_##T(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end) \
    {                                                                                             \
        const W *g = in[0];                                                                       \
        const W *x = in[1];                                                                       \
        W *o = out;                                                                               \
        const float lambd = HSG_LAMBD_##T(p);                                                     \
        for (size_t i = begin; i < end; i++) {                                                    \
            o[i] = (W)(g[i] & hg_mask32(hg_hsg_keep(LD(x[i]), lambd)));                           \
        }                                                                                         \
    }
HSG_SAME(F32, uint32_t, hg_bits_f32)
HSG_SAME(F16, uint16_t, hg_f16_to_f32)
HSG_SAME(BF16, uint16_t, hg_bf16_to_f32)

/* Otherwise: the selected value in P (exact), then the Cast to gradInput's dtype. */
#define HSG_MIXED(G, S, P, O)                                                                      \
    HG_EW2_KERNEL(mix_##G##_##S##_##O, G, S, O,                                                    \
                  HG_CAST_##P##_##O(hg_hsg_keep(b, HSG_LAMBD_##P(p)) ? a : 0.0f))
#define HSG_MIXED3(G, S, P) HSG_MIXED(G, S, P, F32) HSG_MIXED(G, S, P, F16) HSG_MIXED(G, S, P, BF16)
HG_FOR_EACH_FLOAT_PAIR(HSG_MIXED3)

#define HSG_ROWS(G, S, P) \
    HG_ROW2(G, S, F32, mix_##G##_##S##_F32), HG_ROW2(G, S, F16, mix_##G##_##S##_F16), HG_ROW2(G, S, BF16, mix_##G##_##S##_BF16),

/* First match wins: the bit-copy rows come before the generated ones. */
const hg_kernel_entry hg_hard_shrink_grad_scalar[] = {
    HG_ROW2(F32, F32, F32, same_F32),
    HG_ROW2(F16, F16, F16, same_F16),
    HG_ROW2(BF16, BF16, BF16, same_BF16),
    HG_FOR_EACH_FLOAT_PAIR(HSG_ROWS)
    HG_ROW_END,
};
