/*
 * The element-wise kernels, one function per dtype combination, each a plain loop over
 * the contiguous index range [begin, end) so it can be split across threads or
 * specialised for SIMD later.  fp16/bf16 data are handled as raw 16-bit words.
 */
#include "convert.h"
#include "opapi_common.h"

#define HG_SIXTH (1.0f / 6.0f)

/* ------------------------------------------------------------------ HardtanhBackward
 * out = gradOutput (bit copy) where lo < self < hi or self is NaN, else +0. */

static inline uint32_t keep_mask32(float s, float lo, float hi)
{
    int keep = (s > lo && s < hi) || s != s;
    return (uint32_t)0 - (uint32_t)keep;
}

static void hardtanh_f32(const void *grad, const void *self, void *out, float lo, float hi, size_t begin,
                         size_t end)
{
    const uint32_t *g = grad;
    const float *s = self;
    uint32_t *o = out;
    for (size_t i = begin; i < end; i++) {
        o[i] = g[i] & keep_mask32(s[i], lo, hi);
    }
}

static void hardtanh_f16(const void *grad, const void *self, void *out, float lo, float hi, size_t begin,
                         size_t end)
{
    const uint16_t *g = grad;
    const uint16_t *s = self;
    uint16_t *o = out;
    for (size_t i = begin; i < end; i++) {
        o[i] = (uint16_t)(g[i] & keep_mask32(hg_f16_to_f32(s[i]), lo, hi));
    }
}

static void hardtanh_bf16(const void *grad, const void *self, void *out, float lo, float hi, size_t begin,
                          size_t end)
{
    const uint16_t *g = grad;
    const uint16_t *s = self;
    uint16_t *o = out;
    for (size_t i = begin; i < end; i++) {
        o[i] = (uint16_t)(g[i] & keep_mask32(hg_bf16_to_f32(s[i]), lo, hi));
    }
}

hg_hardtanh_fn hg_hardtanh_kernel(aclDataType dtype)
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

static inline float hardsigmoid_grad(float g, float s)
{
    float t = s * HG_SIXTH;
    t = t + 0.5f;
    float r = g * HG_SIXTH;
    uint32_t keep = (uint32_t)0 - (uint32_t)((t > 0.0f) & (t < 1.0f));   /* branch-free select */
    return hg_bits_f32(hg_f32_bits(r) & keep);
}

/* Element loaders: raw storage word -> fp32. */
#define LD_F32(x) (x)
#define LD_F16(x) hg_f16_to_f32(x)
#define LD_BF16(x) hg_bf16_to_f32(x)

/* Result stores: fp32 result -> promoted dtype -> out dtype (named ST_<promoted>_<out>). */
#define ST_F32_F32(r) (r)
#define ST_F32_F16(r) hg_f32_to_f16(r)
#define ST_F32_BF16(r) hg_f32_to_bf16(r)
#define ST_F16_F16(r) hg_f32_to_f16(r)
#define ST_F16_F32(r) hg_f16_to_f32(hg_f32_to_f16(r))
#define ST_F16_BF16(r) hg_f32_to_bf16(hg_f16_to_f32(hg_f32_to_f16(r)))
#define ST_BF16_BF16(r) hg_f32_to_bf16(r)
#define ST_BF16_F32(r) hg_bf16_to_f32(hg_f32_to_bf16(r))
#define ST_BF16_F16(r) hg_f32_to_f16(hg_bf16_to_f32(hg_f32_to_bf16(r)))

typedef float T_F32;
typedef uint16_t T_F16;
typedef uint16_t T_BF16;

#define HS_KERNEL(G, S, P, O)                                                                         \
    static void hardsigmoid_##G##_##S##_##O(const void *grad, const void *self, void *out, size_t begin, \
                                            size_t end)                                               \
    {                                                                                                 \
        const T_##G *g = grad;                                                                        \
        const T_##S *s = self;                                                                        \
        T_##O *o = out;                                                                               \
        for (size_t i = begin; i < end; i++) {                                                        \
            o[i] = ST_##P##_##O(hardsigmoid_grad(LD_##G(g[i]), LD_##S(s[i])));                       \
        }                                                                                             \
    }

/* Same-dtype inputs keep their dtype as the promoted one. */
#define HS_KERNELS_FOR(G, S, P) HS_KERNEL(G, S, P, F32) HS_KERNEL(G, S, P, F16) HS_KERNEL(G, S, P, BF16)

HS_KERNELS_FOR(F32, F32, F32)
HS_KERNELS_FOR(F16, F16, F16)
HS_KERNELS_FOR(BF16, BF16, BF16)
HS_KERNELS_FOR(F16, F32, F32)
HS_KERNELS_FOR(F32, F16, F32)
HS_KERNELS_FOR(BF16, F32, F32)
HS_KERNELS_FOR(F32, BF16, F32)
HS_KERNELS_FOR(F16, BF16, F32)
HS_KERNELS_FOR(BF16, F16, F32)

static int dtype_index(aclDataType d)
{
    switch (d) {
    case ACL_FLOAT: return 0;
    case ACL_FLOAT16: return 1;
    case ACL_BF16: return 2;
    default: return -1;
    }
}

#define HS_ROW(G, S) {hardsigmoid_##G##_##S##_F32, hardsigmoid_##G##_##S##_F16, hardsigmoid_##G##_##S##_BF16}

/* [grad][self][out], indices as in dtype_index. */
static const hg_hardsigmoid_fn hardsigmoid_table[3][3][3] = {
    {HS_ROW(F32, F32), HS_ROW(F32, F16), HS_ROW(F32, BF16)},
    {HS_ROW(F16, F32), HS_ROW(F16, F16), HS_ROW(F16, BF16)},
    {HS_ROW(BF16, F32), HS_ROW(BF16, F16), HS_ROW(BF16, BF16)},
};

hg_hardsigmoid_fn hg_hardsigmoid_kernel(aclDataType grad, aclDataType self, aclDataType out)
{
    int g = dtype_index(grad), s = dtype_index(self), o = dtype_index(out);
    if (g < 0 || s < 0 || o < 0) {
        return NULL;
    }
    return hardsigmoid_table[g][s][o];
}
