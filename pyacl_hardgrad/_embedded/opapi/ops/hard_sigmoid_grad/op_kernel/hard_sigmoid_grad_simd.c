/*
 * HardsigmoidBackward's SIMD kernels over hg_simd.h's primitives (compiled once per path):
 * r = g/6 where self lies inside hard_sigmoid_grad.h's keep interval (t is not computed),
 * rounded to the promoted dtype and cast to out's.  On AVX2 the all-bf16 and all-fp16
 * kernels are specialised (16 per step, keep test on the 16-bit self words).
 */
#include "hg_simd.h"
#include "hard_sigmoid_grad.h"

static inline hgv hs_v(hgv g, hgv s)
{
    hgv r = hgv_mul(g, hgv_set1(HG_SIXTH));
    hgm keep = hgm_and(hgv_ge(s, hgv_set1(HG_HS_KEEP_MIN)), hgv_le(s, hgv_set1(HG_HS_KEEP_MAX)));
    return hgv_sel(keep, r, hgv_set1(0.0f));
}

#define HSV_RT_F32(v) (v)
#define HSV_RT_F16(v) hgv_rt_f16_rne(v)
#define HSV_RT_BF16(v) hgv_rt_bf16_rna(v)

#define HS_KERNEL(G, S, P, O)                                                                       \
    static void hs_##G##_##S##_##O(const void *const *in, void *out, const hg_params *p, size_t begin, \
                                   size_t end)                                                      \
    {                                                                                               \
        const hg_T_##G *g = in[0];                                                                  \
        const hg_T_##S *s = in[1];                                                                  \
        hg_T_##O *o = out;                                                                          \
        size_t i = begin;                                                                           \
        (void)p;                                                                                    \
        for (; i + HG_W <= end; i += HG_W) {                                                        \
            HGV_CAST_##P##_##O(o + i, HSV_RT_##P(hs_v(HGV_LD_##G(g + i), HGV_LD_##S(s + i))));      \
        }                                                                                           \
        for (; i < end; i++) {                                                                      \
            o[i] = HS_ST(P, O, hg_hardsigmoid_grad(HG_LD_##G(g[i]), HG_LD_##S(s[i])));              \
        }                                                                                           \
    }
#define HS_KERNELS(G, S, P) HS_KERNEL(G, S, P, F32) HS_KERNEL(G, S, P, F16) HS_KERNEL(G, S, P, BF16)
HG_FOR_EACH_FLOAT_PAIR(HS_KERNELS)

#if defined(HG_SIMD_AVX2)
static inline uint16_t hs_bf16_one(uint16_t g, uint16_t s)
{
    return HS_ST(BF16, BF16, hg_hardsigmoid_grad(HG_LD_BF16(g), HG_LD_BF16(s)));
}

/* bf16 x bf16 -> bf16, 16 elements per step.  Each 32-bit lane holds two bf16 words: shifting
 * the even one up (or masking the odd one's low half away) gives its exact fp32 value in
 * place, and the two results go back into their own halves with one 16-bit blend, so no pack
 * or lane-crossing shuffle is needed; the keep test is done on the 16-bit self words.  The
 * rounding needs no NaN case here: a NaN g is a bf16 word (low 16 bits zero), g/6 is that NaN
 * quieted, and adding 0x8000 to it carries nothing, which is convert.h's (x >> 16) | 0x40. */
static inline void hs_bf16_run(const void *const *in, void *out, size_t begin, size_t end)
{
    const uint16_t *g = in[0];
    const uint16_t *s = in[1];
    uint16_t *o = out;
    size_t i = begin;
    const __m256i hi_half = _mm256_set1_epi32((int)0xffff0000u);
    const __m256i half_ulp = _mm256_set1_epi32(0x8000);
    const __m256 sixth = _mm256_set1_ps(HG_SIXTH);
    const __m256i abs_mask = _mm256_set1_epi16(0x7fff), abs_lim = _mm256_set1_epi16(HG_HS_KEEP_BF16_ABS_LT);
    for (; i + 16 <= end; i += 16) {
        __m256i gw = _mm256_loadu_si256((const __m256i *)(const void *)(g + i));
        __m256i sw = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256 ge = _mm256_castsi256_ps(_mm256_slli_epi32(gw, 16));
        __m256 go = _mm256_castsi256_ps(_mm256_and_si256(gw, hi_half));
        __m256i keep = _mm256_cmpgt_epi16(abs_lim, _mm256_and_si256(sw, abs_mask));
        __m256i re = _mm256_add_epi32(_mm256_castps_si256(_mm256_mul_ps(ge, sixth)), half_ulp);
        __m256i ro = _mm256_add_epi32(_mm256_castps_si256(_mm256_mul_ps(go, sixth)), half_ulp);
        __m256i res = _mm256_blend_epi16(_mm256_srli_epi32(re, 16), ro, 0xAA);
        hgv_st_i256(o + i, _mm256_and_si256(res, keep));
    }
    for (; i < end; i++) {
        o[i] = hs_bf16_one(g[i], s[i]);
    }
}

static inline uint16_t hs_f16_one(uint16_t g, uint16_t s)
{
    return HS_ST(F16, F16, hg_hardsigmoid_grad(HG_LD_F16(g), HG_LD_F16(s)));
}

/* fp16 x fp16 -> fp16, 16 elements per step: only gradOutput goes through fp32 (F16C); the
 * keep test is done on the 16-bit self words, and masking after the rounding is the same
 * since a dropped lane rounds to +0 either way. */
static inline void hs_f16_run(const void *const *in, void *out, size_t begin, size_t end)
{
    const uint16_t *g = in[0];
    const uint16_t *s = in[1];
    uint16_t *o = out;
    size_t i = begin;
    const __m256 sixth = _mm256_set1_ps(HG_SIXTH);
    const __m256i abs_mask = _mm256_set1_epi16(0x7fff), abs_lim = _mm256_set1_epi16(HG_HS_KEEP_F16_ABS_LT);
    for (; i + 16 <= end; i += 16) {
        __m256i sw = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256i keep = _mm256_cmpgt_epi16(abs_lim, _mm256_and_si256(sw, abs_mask));
        __m128i rlo = _mm256_cvtps_ph(_mm256_mul_ps(hgv_ld_f16(g + i), sixth), 0);
        __m128i rhi = _mm256_cvtps_ph(_mm256_mul_ps(hgv_ld_f16(g + i + 8), sixth), 0);
        __m256i res = _mm256_inserti128_si256(_mm256_castsi128_si256(rlo), rhi, 1);
        hgv_st_i256(o + i, _mm256_and_si256(res, keep));
    }
    for (; i < end; i++) {
        o[i] = hs_f16_one(g[i], s[i]);
    }
}

static void hs_bf16_x16(const void *const *in, void *out, const hg_params *p, size_t b, size_t e)
{
    (void)p;
    hs_bf16_run(in, out, b, e);
}
static void hs_f16_x16(const void *const *in, void *out, const hg_params *p, size_t b, size_t e)
{
    (void)p;
    hs_f16_run(in, out, b, e);
}
#define HS_SPECIAL_ROWS HG_ROW2(BF16, BF16, BF16, hs_bf16_x16), HG_ROW2(F16, F16, F16, hs_f16_x16),
#else
#define HS_SPECIAL_ROWS
#endif

#define HS_ROWS(G, S, P) \
    HG_ROW2(G, S, F32, hs_##G##_##S##_F32), HG_ROW2(G, S, F16, hs_##G##_##S##_F16), HG_ROW2(G, S, BF16, hs_##G##_##S##_BF16),

/* First match wins: the specialised rows come before the generic ones. */
const hg_kernel_entry HG_SIMD_SYM(hg_hard_sigmoid_grad)[] = {
    HS_SPECIAL_ROWS
    HG_FOR_EACH_FLOAT_PAIR(HS_ROWS)
    HG_ROW_END,
};
