/*
 * HardshrinkBackward's SIMD kernels over hg_simd.h's primitives (compiled once per path), for
 * gradOutput, self and gradInput of one dtype: keep = not (|self| <= lambd), the selected
 * gradOutput words copied bit for bit.  Mixed dtypes use the portable kernels.
 */
#include "hg_simd.h"
#include "hard_shrink_grad.h"

#define HSG_SIMD(T, W, VLD, SLD, KEEP)                                                             \
    static void same_##T(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end) \
    {                                                                                              \
        const W *g = in[0];                                                                        \
        const W *x = in[1];                                                                        \
        W *o = out;                                                                                \
        const float lambd = HSG_LAMBD_##T(p);                                                      \
        const hgv vl = hgv_set1(lambd);                                                            \
        size_t i = begin;                                                                          \
        for (; i + HG_W <= end; i += HG_W) {                                                       \
            KEEP(o + i, g + i, hgm_not(hgv_le(hgv_abs(VLD(x + i)), vl)));                          \
        }                                                                                          \
        for (; i < end; i++) {                                                                     \
            o[i] = (W)(g[i] & hg_mask32(hg_hsg_keep(SLD(x[i]), lambd)));                           \
        }                                                                                          \
    }
HSG_SIMD(F32, uint32_t, hgv_ld_bits, hg_bits_f32, hgv_keep32)
HSG_SIMD(F16, uint16_t, hgv_ld_f16, hg_f16_to_f32, hgv_keep16)
HSG_SIMD(BF16, uint16_t, hgv_ld_bf16, hg_bf16_to_f32, hgv_keep16)

const hg_kernel_entry HG_SIMD_SYM(hg_hard_shrink_grad)[] = {
    HG_ROW2(F32, F32, F32, same_F32),
    HG_ROW2(F16, F16, F16, same_F16),
    HG_ROW2(BF16, BF16, BF16, same_BF16),
    HG_ROW_END,
};
