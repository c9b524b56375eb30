/*
 * The SIMD kernels written once over a small set of vector primitives; each
 * kernels_<arch>.c file defines the primitives for its instruction set and includes
 * this file.  Every primitive must round exactly like convert.h / kernel_math.h (the
 * vector body and the scalar tail of a range then agree bit for bit, and so do all the
 * paths).  The build's -ffp-contract=off keeps the multiply and the add of
 * HardsigmoidBackward two separate roundings in the vector code too.
 *
 * Primitives expected (V = fp32 vector of HG_W lanes, p = element pointer):
 *   HG_V_LD_F32(p) HG_V_LD_F16(p) HG_V_LD_BF16(p)       load and widen to fp32
 *   HG_V_ST_F32(p, v) HG_V_ST_F16(p, v) HG_V_ST_BF16(p, v) round and store
 *   HG_V_RT_F16(v) HG_V_RT_BF16(v)                       round to fp16/bf16 and widen back
 *   HG_V_SET1(x)                                         broadcast
 *   HG_V_HS(g, s)                                        HardsigmoidBackward of fp32 vectors
 *   HG_V_HT32(o, g, s, lo, hi) HG_V_HT16(o, g, s, lo, hi) HardtanhBackward of HG_W elements
 *                                                        (g/o raw words, s widened self)
 * and HG_PFX, the name prefix (hg_<HG_PFX>_hardtanh_kernel ...).  Optionally
 * HG_HS_BF16_BF16_BF16, HG_HS_F16_F16_F16 and HG_HT_BF16 name arch-specific kernels for
 * all-bf16 / all-fp16 HardsigmoidBackward and all-bf16 HardtanhBackward.
 */
#ifndef PYACL_HARDGRAD_OPAPI_KERNELS_SIMD_H_
#define PYACL_HARDGRAD_OPAPI_KERNELS_SIMD_H_

#include "kernel_math.h"
#include "kernels_isa.h"

#define HGS_CAT_(a, b) a##b
#define HGS_CAT(a, b) HGS_CAT_(a, b)
#define HGS_NAME(n) HGS_CAT(HGS_CAT(HGS_CAT(hg_, HG_PFX), _), n)

/* Vector stores: fp32 result -> promoted dtype -> out dtype. */
#define HGS_VST_F32_F32(p, r) HG_V_ST_F32(p, r)
#define HGS_VST_F32_F16(p, r) HG_V_ST_F16(p, r)
#define HGS_VST_F32_BF16(p, r) HG_V_ST_BF16(p, r)
#define HGS_VST_F16_F16(p, r) HG_V_ST_F16(p, r)
#define HGS_VST_F16_F32(p, r) HG_V_ST_F32(p, HG_V_RT_F16(r))
#define HGS_VST_F16_BF16(p, r) HG_V_ST_BF16(p, HG_V_RT_F16(r))
#define HGS_VST_BF16_BF16(p, r) HG_V_ST_BF16(p, r)
#define HGS_VST_BF16_F32(p, r) HG_V_ST_F32(p, HG_V_RT_BF16(r))
#define HGS_VST_BF16_F16(p, r) HG_V_ST_F16(p, HG_V_RT_BF16(r))

#define HGS_HT_KERNEL(NAME, T, VLD, SLD, VOP)                                                         \
    static void HGS_NAME(NAME)(const void *grad, const void *self, void *out, float lo, float hi,     \
                               size_t begin, size_t end)                                              \
    {                                                                                                 \
        const T *g = grad;                                                                            \
        const T *s = self;                                                                            \
        T *o = out;                                                                                   \
        size_t i = begin;                                                                             \
        if (end - begin >= HG_W) {                                                                    \
            float vl = lo, vh = hi;                                                                   \
            hg_ht_unordered_bounds(&vl, &vh);   /* for arch files with unordered keep tests */         \
            const HG_V vlo = HG_V_SET1(vl), vhi = HG_V_SET1(vh);                                      \
            for (; i + HG_W <= end; i += HG_W) {                                                      \
                VOP(o + i, g + i, VLD(s + i), vlo, vhi);                                              \
            }                                                                                         \
        }                                                                                             \
        for (; i < end; i++) {                                                                        \
            o[i] = (T)(g[i] & hg_keep_mask32(SLD(s[i]), lo, hi));                                     \
        }                                                                                             \
    }

#define HGS_AS_F32_BITS(x) hg_bits_f32(x)
HGS_HT_KERNEL(ht_f32, uint32_t, HG_V_LD_F32_BITS, HGS_AS_F32_BITS, HG_V_HT32)
#ifndef HG_HT_F16
HGS_HT_KERNEL(ht_f16, uint16_t, HG_V_LD_F16, hg_f16_to_f32, HG_V_HT16)
#endif
#ifndef HG_HT_BF16
HGS_HT_KERNEL(ht_bf16, uint16_t, HG_V_LD_BF16, hg_bf16_to_f32, HG_V_HT16)
#endif

hg_hardtanh_fn HGS_NAME(hardtanh_kernel)(aclDataType dtype)
{
    switch (dtype) {
    case ACL_FLOAT: return HGS_NAME(ht_f32);
#ifdef HG_HT_F16
    case ACL_FLOAT16: return HG_HT_F16; /* the arch file's specialised fp16 kernel */
#else
    case ACL_FLOAT16: return HGS_NAME(ht_f16);
#endif
#ifdef HG_HT_BF16
    case ACL_BF16: return HG_HT_BF16;   /* the arch file's specialised bf16 kernel */
#else
    case ACL_BF16: return HGS_NAME(ht_bf16);
#endif
    default: return NULL;
    }
}

#define HGS_HS_KERNEL(G, S, P, O)                                                                     \
    static void HGS_NAME(hs_##G##_##S##_##O)(const void *grad, const void *self, void *out, size_t begin, \
                                             size_t end)                                              \
    {                                                                                                 \
        const hg_T_##G *g = grad;                                                                     \
        const hg_T_##S *s = self;                                                                     \
        hg_T_##O *o = out;                                                                            \
        size_t i = begin;                                                                             \
        for (; i + HG_W <= end; i += HG_W) {                                                            \
            HGS_VST_##P##_##O(o + i, HG_V_HS(HG_V_LD_##G(g + i), HG_V_LD_##S(s + i)));                \
        }                                                                                             \
        for (; i < end; i++) {                                                                        \
            o[i] = HG_ST_##P##_##O(hg_hardsigmoid_grad(HG_LD_##G(g[i]), HG_LD_##S(s[i])));            \
        }                                                                                             \
    }

#define HGS_HS_KERNELS_FOR(G, S, P) HGS_HS_KERNEL(G, S, P, F32) HGS_HS_KERNEL(G, S, P, F16) HGS_HS_KERNEL(G, S, P, BF16)

HG_FOR_EACH_INPUT_PAIR(HGS_HS_KERNELS_FOR)

#define HGS_HS_ROW(G, S) {HGS_NAME(hs_##G##_##S##_F32), HGS_NAME(hs_##G##_##S##_F16), HGS_NAME(hs_##G##_##S##_BF16)}

hg_hardsigmoid_fn HGS_NAME(hardsigmoid_kernel)(aclDataType grad, aclDataType self, aclDataType out)
{
    /* [grad][self][out], indices as in hg_kernel_dtype_index. */
    static const hg_hardsigmoid_fn table[3][3][3] = {
        {HGS_HS_ROW(F32, F32), HGS_HS_ROW(F32, F16), HGS_HS_ROW(F32, BF16)},
        {HGS_HS_ROW(F16, F32), HGS_HS_ROW(F16, F16), HGS_HS_ROW(F16, BF16)},
        {HGS_HS_ROW(BF16, F32), HGS_HS_ROW(BF16, F16), HGS_HS_ROW(BF16, BF16)},
    };
    int g = hg_kernel_dtype_index(grad), s = hg_kernel_dtype_index(self), o = hg_kernel_dtype_index(out);
    if (g < 0 || s < 0 || o < 0) {
        return NULL;
    }
#ifdef HG_HS_BF16_BF16_BF16
    if (g == 2 && s == 2 && o == 2) {
        return HG_HS_BF16_BF16_BF16;   /* the arch file's specialised all-bf16 kernel */
    }
#endif
#ifdef HG_HS_F16_F16_F16
    if (g == 1 && s == 1 && o == 1) {
        return HG_HS_F16_F16_F16;      /* the arch file's specialised all-fp16 kernel */
    }
#endif
    return table[g][s][o];
}

#endif /* PYACL_HARDGRAD_OPAPI_KERNELS_SIMD_H_ */
