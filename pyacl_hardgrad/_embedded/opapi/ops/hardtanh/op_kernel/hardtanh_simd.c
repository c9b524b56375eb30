/* Hardtanh's SIMD kernels over hg_simd.h's primitives for the float dtypes (compiled once per
 * path); FLOAT64 and the integer dtypes use the portable kernels. */
#include "hg_simd.h"
#include "hardtanh.h"

static inline hgv v_htanh(hgv x, hgv lo, hgv hi)
{
    hgv r = hgv_sel(hgv_lt(x, lo), lo, x);
    return hgv_sel(hgv_gt(r, hi), hi, r);
}

#define HTF(T, W, VLD, VST, ST)                                                                   \
    static void k_##T(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end) \
    {                                                                                             \
        const W *x = in[0];                                                                       \
        W *o = out;                                                                               \
        size_t i = begin;                                                                         \
        if (HG_HTANH_NAN_BOUND(p)) {                                                              \
            for (; i < end; i++) {                                                                \
                o[i] = ST(p->f[2]);                                                               \
            }                                                                                     \
            return;                                                                               \
        }                                                                                         \
        const hgv lo = hgv_set1(p->f[0]), hi = hgv_set1(p->f[1]);                                 \
        for (; i + HG_W <= end; i += HG_W) {                                                      \
            VST(o + i, v_htanh(VLD(x + i), lo, hi));                                              \
        }                                                                                         \
        for (; i < end; i++) {                                                                    \
            o[i] = ST(hg_htanh_f(HG_LD_##T(x[i]), p->f[0], p->f[1]));                             \
        }                                                                                         \
    }

static inline hgv v_ld_f32(const float *p)
{
    return hgv_ld_f32(p);
}
HTF(F32, float, v_ld_f32, hgv_st_f32, HG_ST_F32_RNE)
HTF(F16, uint16_t, hgv_ld_f16, hgv_st_f16_rne, HG_ST_F16_RNE)
HTF(BF16, uint16_t, hgv_ld_bf16, hgv_st_bf16_rne, HG_ST_BF16_RNE)

const hg_kernel_entry HG_SIMD_SYM(hg_hardtanh)[] = {
    HG_ROW1(F32, F32, k_F32),
    HG_ROW1(F16, F16, k_F16),
    HG_ROW1(BF16, BF16, k_BF16),
    HG_ROW_END,
};
