/* Hardshrink's SIMD kernels over hg_simd.h's primitives, self and out of one dtype: keep =
 * not (|x| <= lambd), the self words copied bit for bit (other out dtypes: portable kernels). */
#include "hg_simd.h"
#include "hard_shrink.h"

#define SAME(T, W, VLD, SLD, KEEP)                                                                 \
    static void same_##T(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end) \
    {                                                                                              \
        const W *x = in[0];                                                                        \
        W *o = out;                                                                                \
        const hgv vl = hgv_set1(p->f[0]);                                                          \
        size_t i = begin;                                                                          \
        for (; i + HG_W <= end; i += HG_W) {                                                       \
            KEEP(o + i, x + i, hgm_not(hgv_le(hgv_abs(VLD(x + i)), vl)));                          \
        }                                                                                          \
        for (; i < end; i++) {                                                                     \
            o[i] = (W)(x[i] & hg_mask32(hg_hshr_keep(SLD(x[i]), p->f[0])));                        \
        }                                                                                          \
    }
SAME(F32, uint32_t, hgv_ld_bits, hg_bits_f32, hgv_keep32)
SAME(F16, uint16_t, hgv_ld_f16, hg_f16_to_f32, hgv_keep16)
SAME(BF16, uint16_t, hgv_ld_bf16, hg_bf16_to_f32, hgv_keep16)

const hg_kernel_entry HG_SIMD_SYM(hg_hard_shrink)[] = {
    HG_ROW1(F32, F32, same_F32),
    HG_ROW1(F16, F16, same_F16),
    HG_ROW1(BF16, BF16, same_BF16),
    HG_ROW_END,
};
