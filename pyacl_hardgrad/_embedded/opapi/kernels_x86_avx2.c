/*
 * AVX2 + F16C kernels (8 fp32 lanes).  fp16 conversions use F16C with round-to-nearest-
 * even selected in the instruction (imm 0), which is convert.h's rule including
 * subnormals, overflow to inf and quiet NaNs with the top payload bits; the bf16 rounding
 * (ties away from zero) is done with integer ops on the fp32 bits.
 */
#include <immintrin.h>

#include "kernel_math.h"

#define HG_PFX avx2
#define HG_W 8
#define HG_V __m256

static inline __m256 v_ld_f16(const uint16_t *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)p));
}

static inline __m256 v_ld_bf16(const uint16_t *p)
{
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

/* fp32 bits -> bf16 bits in the low half of each lane: (bits + 0x8000) >> 16, NaN quiet. */
static inline __m256i v_bf16_words(__m256 v)
{
    __m256i x = _mm256_castps_si256(v);
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    __m256i r = _mm256_add_epi32(x, _mm256_andnot_si256(nan, _mm256_set1_epi32(0x8000)));   /* NaN: no carry */
    r = _mm256_srli_epi32(r, 16);
    return _mm256_or_si256(r, _mm256_and_si256(nan, _mm256_set1_epi32(0x0040)));             /* NaN: quiet */
}

static inline __m128i v_pack16(__m256i w)
{
    return _mm_packus_epi32(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

static inline void v_st_f16(uint16_t *p, __m256 v)
{
    _mm_storeu_si128((__m128i *)(void *)p, _mm256_cvtps_ph(v, 0));
}

static inline void v_st_bf16(uint16_t *p, __m256 v)
{
    _mm_storeu_si128((__m128i *)(void *)p, v_pack16(v_bf16_words(v)));
}

static inline __m256 v_rt_f16(__m256 v)
{
    return _mm256_cvtph_ps(_mm256_cvtps_ph(v, 0));
}

static inline __m256 v_rt_bf16(__m256 v)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(v_bf16_words(v), 16));
}

static inline __m256 v_hs(__m256 g, __m256 s)
{
    const __m256 sixth = _mm256_set1_ps(HG_SIXTH);
    __m256 t = _mm256_mul_ps(s, sixth);
    t = _mm256_add_ps(t, _mm256_set1_ps(0.5f));
    __m256 r = _mm256_mul_ps(g, sixth);
    __m256 keep = _mm256_and_ps(_mm256_cmp_ps(t, _mm256_setzero_ps(), _CMP_GT_OQ),
                                _mm256_cmp_ps(t, _mm256_set1_ps(1.0f), _CMP_LT_OQ));
    return _mm256_and_ps(r, keep);
}

static inline __m256 v_ht_keep(__m256 s, __m256 lo, __m256 hi)
{
    __m256 inside = _mm256_and_ps(_mm256_cmp_ps(s, lo, _CMP_GT_OQ), _mm256_cmp_ps(s, hi, _CMP_LT_OQ));
    return _mm256_or_ps(inside, _mm256_cmp_ps(s, s, _CMP_UNORD_Q));
}

static inline void v_ht32(uint32_t *o, const uint32_t *g, __m256 s, __m256 lo, __m256 hi)
{
    __m256i gw = _mm256_loadu_si256((const __m256i *)(const void *)g);
    __m256i keep = _mm256_castps_si256(v_ht_keep(s, lo, hi));
    _mm256_storeu_si256((__m256i *)(void *)o, _mm256_and_si256(gw, keep));
}

static inline void v_ht16(uint16_t *o, const uint16_t *g, __m256 s, __m256 lo, __m256 hi)
{
    __m256i keep = _mm256_castps_si256(v_ht_keep(s, lo, hi));
    __m128i k16 = _mm_packs_epi32(_mm256_castsi256_si128(keep), _mm256_extracti128_si256(keep, 1));
    __m128i gw = _mm_loadu_si128((const __m128i *)(const void *)g);
    _mm_storeu_si128((__m128i *)(void *)o, _mm_and_si128(gw, k16));
}

/* bf16 x bf16 -> bf16 HardsigmoidBackward, 16 elements per step.  Unpacking the words
 * against zero puts each bf16 in the top half of a 32-bit lane (its exact fp32 value)
 * with lanes in the order 0-3, 8-11 (low) and 4-7, 12-15 (high); the in-lane pack of
 * the two rounded halves restores 0..15, so no lane-crossing shuffle is needed. */
static void hs_bf16_x16(const void *grad, const void *self, void *out, size_t begin, size_t end)
{
    const uint16_t *g = grad;
    const uint16_t *s = self;
    uint16_t *o = out;
    size_t i = begin;
    const __m256i zero = _mm256_setzero_si256();
    for (; i + 16 <= end; i += 16) {
        __m256i gw = _mm256_loadu_si256((const __m256i *)(const void *)(g + i));
        __m256i sw = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256 rlo = v_hs(_mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, gw)),
                          _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, sw)));
        __m256 rhi = v_hs(_mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, gw)),
                          _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, sw)));
        __m256i packed = _mm256_packus_epi32(v_bf16_words(rlo), v_bf16_words(rhi));
        _mm256_storeu_si256((__m256i *)(void *)(o + i), packed);
    }
    for (; i < end; i++) {
        o[i] = HG_ST_BF16_BF16(hg_hardsigmoid_grad(HG_LD_BF16(g[i]), HG_LD_BF16(s[i])));
    }
}

#define HG_HS_BF16_BF16_BF16 hs_bf16_x16

/* bf16 HardtanhBackward, 16 elements per step, widened the same way; the in-lane pack of
 * the two keep masks lines up with the 16 gradOutput words. */
static void ht_bf16_x16(const void *grad, const void *self, void *out, float lo, float hi, size_t begin,
                        size_t end)
{
    const uint16_t *g = grad;
    const uint16_t *s = self;
    uint16_t *o = out;
    size_t i = begin;
    const __m256i zero = _mm256_setzero_si256();
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    for (; i + 16 <= end; i += 16) {
        __m256i gw = _mm256_loadu_si256((const __m256i *)(const void *)(g + i));
        __m256i sw = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256i klo = _mm256_castps_si256(v_ht_keep(_mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, sw)), vlo, vhi));
        __m256i khi = _mm256_castps_si256(v_ht_keep(_mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, sw)), vlo, vhi));
        _mm256_storeu_si256((__m256i *)(void *)(o + i), _mm256_and_si256(gw, _mm256_packs_epi32(klo, khi)));
    }
    for (; i < end; i++) {
        o[i] = (uint16_t)(g[i] & hg_keep_mask32(hg_bf16_to_f32(s[i]), lo, hi));
    }
}

#define HG_HT_BF16 ht_bf16_x16

#define HG_V_LD_F32(p) _mm256_loadu_ps(p)
#define HG_V_LD_F32_BITS(p) _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(const void *)(p)))
#define HG_V_LD_F16(p) v_ld_f16(p)
#define HG_V_LD_BF16(p) v_ld_bf16(p)
#define HG_V_ST_F32(p, v) _mm256_storeu_ps(p, v)
#define HG_V_ST_F16(p, v) v_st_f16(p, v)
#define HG_V_ST_BF16(p, v) v_st_bf16(p, v)
#define HG_V_RT_F16(v) v_rt_f16(v)
#define HG_V_RT_BF16(v) v_rt_bf16(v)
#define HG_V_SET1(x) _mm256_set1_ps(x)
#define HG_V_HS(g, s) v_hs(g, s)
#define HG_V_HT32(o, g, s, lo, hi) v_ht32(o, g, s, lo, hi)
#define HG_V_HT16(o, g, s, lo, hi) v_ht16(o, g, s, lo, hi)

#include "kernels_simd.h"
