/*
 * The portable element-wise kernels, one function per dtype combination, each a plain
 * loop over the contiguous index range [begin, end) (so a range can go to any thread),
 * and the dispatch to the SIMD kernels of the selected path.  fp16/bf16 data are handled
 * as raw 16-bit words.
 */
#include "kernel_math.h"
#include "kernels_isa.h"

/* ------------------------------------------------------------------ HardtanhBackward
 * out = gradOutput (bit copy) where lo < self < hi or self is NaN, else +0. */

static void hardtanh_f32(const void *grad, const void *self, void *out, float lo, float hi, size_t begin,
                         size_t end)
{
    const uint32_t *g = grad;
    const float *s = self;
    uint32_t *o = out;
    for (size_t i = begin; i < end; i++) {
        o[i] = g[i] & hg_keep_mask32(s[i], lo, hi);
    }
}

static void hardtanh_f16(const void *grad, const void *self, void *out, float lo, float hi, size_t begin,
                         size_t end)
{
    const uint16_t *g = grad;
    const uint16_t *s = self;
    uint16_t *o = out;
    for (size_t i = begin; i < end; i++) {
        o[i] = (uint16_t)(g[i] & hg_keep_mask32(hg_f16_to_f32(s[i]), lo, hi));
    }
}

static void hardtanh_bf16(const void *grad, const void *self, void *out, float lo, float hi, size_t begin,
                          size_t end)
{
    const uint16_t *g = grad;
    const uint16_t *s = self;
    uint16_t *o = out;
    for (size_t i = begin; i < end; i++) {
        o[i] = (uint16_t)(g[i] & hg_keep_mask32(hg_bf16_to_f32(s[i]), lo, hi));
    }
}

hg_hardtanh_fn hg_scalar_hardtanh_kernel(aclDataType dtype)
{
    switch (dtype) {
    case ACL_FLOAT: return hardtanh_f32;
    case ACL_FLOAT16: return hardtanh_f16;
    case ACL_BF16: return hardtanh_bf16;
    default: return NULL;
    }
}

/* ------------------------------------------------------------------ HardsigmoidBackward
 * In fp32: t = self * (1/6); t = t + 0.5 (two roundings); r = gradOutput * (1/6);
 * res = 0 < t < 1 ? r : 0; then res is rounded to the promoted dtype and cast to out's. */

aclDataType hg_hardsigmoid_promote(aclDataType grad, aclDataType self)
{
    if (grad == self) {
        return grad;
    }
    return ACL_FLOAT;   /* f16+f32, bf16+f32, f16+bf16 */
}

#define HS_KERNEL(G, S, P, O)                                                                         \
    static void hardsigmoid_##G##_##S##_##O(const void *grad, const void *self, void *out, size_t begin, \
                                            size_t end)                                               \
    {                                                                                                 \
        const hg_T_##G *g = grad;                                                                     \
        const hg_T_##S *s = self;                                                                     \
        hg_T_##O *o = out;                                                                            \
        for (size_t i = begin; i < end; i++) {                                                        \
            o[i] = HG_ST_##P##_##O(hg_hardsigmoid_grad(HG_LD_##G(g[i]), HG_LD_##S(s[i])));            \
        }                                                                                             \
    }

#define HS_KERNELS_FOR(G, S, P) HS_KERNEL(G, S, P, F32) HS_KERNEL(G, S, P, F16) HS_KERNEL(G, S, P, BF16)

HG_FOR_EACH_INPUT_PAIR(HS_KERNELS_FOR)

#define HS_ROW(G, S) {hardsigmoid_##G##_##S##_F32, hardsigmoid_##G##_##S##_F16, hardsigmoid_##G##_##S##_BF16}

/* [grad][self][out], indices as in hg_kernel_dtype_index. */
static const hg_hardsigmoid_fn hardsigmoid_table[3][3][3] = {
    {HS_ROW(F32, F32), HS_ROW(F32, F16), HS_ROW(F32, BF16)},
    {HS_ROW(F16, F32), HS_ROW(F16, F16), HS_ROW(F16, BF16)},
    {HS_ROW(BF16, F32), HS_ROW(BF16, F16), HS_ROW(BF16, BF16)},
};

hg_hardsigmoid_fn hg_scalar_hardsigmoid_kernel(aclDataType grad, aclDataType self, aclDataType out)
{
    int g = hg_kernel_dtype_index(grad), s = hg_kernel_dtype_index(self), o = hg_kernel_dtype_index(out);
    if (g < 0 || s < 0 || o < 0) {
        return NULL;
    }
    return hardsigmoid_table[g][s][o];
}

/* ------------------------------------------------------------------ dispatch */

hg_hardtanh_fn hg_hardtanh_kernel(aclDataType dtype)
{
    hg_hardtanh_fn fn = NULL;
    switch (hg_kernel_isa()) {
#if defined(__x86_64__)
    case HG_ISA_AVX512: fn = hg_avx512_hardtanh_kernel(dtype); break;
    case HG_ISA_AVX2: fn = hg_avx2_hardtanh_kernel(dtype); break;
#endif
#if defined(__aarch64__)
    case HG_ISA_NEON: fn = hg_neon_hardtanh_kernel(dtype); break;
#endif
    default: break;
    }
    return fn ? fn : hg_scalar_hardtanh_kernel(dtype);
}

hg_hardsigmoid_fn hg_hardsigmoid_kernel(aclDataType grad, aclDataType self, aclDataType out)
{
    hg_hardsigmoid_fn fn = NULL;
    switch (hg_kernel_isa()) {
#if defined(__x86_64__)
    case HG_ISA_AVX512: fn = hg_avx512_hardsigmoid_kernel(grad, self, out); break;
    case HG_ISA_AVX2: fn = hg_avx2_hardsigmoid_kernel(grad, self, out); break;
#endif
#if defined(__aarch64__)
    case HG_ISA_NEON: fn = hg_neon_hardsigmoid_kernel(grad, self, out); break;
#endif
    default: break;
    }
    return fn ? fn : hg_scalar_hardsigmoid_kernel(grad, self, out);
}

/* Streaming-store kernels for tensors much larger than the caches: only where the selected
 * path has them (the AVX2 16-bit kernels), else NULL and the caller keeps the normal one. */
hg_hardtanh_fn hg_hardtanh_kernel_nt(aclDataType dtype)
{
#if defined(__x86_64__)
    if (hg_kernel_isa() == HG_ISA_AVX2) {
        return hg_avx2_hardtanh_kernel_nt(dtype);
    }
#endif
    (void)dtype;
    return NULL;
}

hg_hardsigmoid_fn hg_hardsigmoid_kernel_nt(aclDataType grad, aclDataType self, aclDataType out)
{
#if defined(__x86_64__)
    if (hg_kernel_isa() == HG_ISA_AVX2) {
        return hg_avx2_hardsigmoid_kernel_nt(grad, self, out);
    }
#endif
    (void)grad;
    (void)self;
    (void)out;
    return NULL;
}
