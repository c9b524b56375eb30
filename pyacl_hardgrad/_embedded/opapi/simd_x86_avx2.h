/*
 * hg_simd.h's primitives for AVX2 + F16C (8 fp32 lanes).  fp16 RNE uses F16C with the
 * rounding selected in the instruction (imm 0: nearest even), which is convert.h's rule
 * including subnormals, overflow to inf and quiet NaNs with the top payload bits; the
 * other roundings are integer ops on the fp32 bits, written like convert.h's.
 */
#ifndef PYACL_HARDGRAD_OPAPI_SIMD_X86_AVX2_H_
#define PYACL_HARDGRAD_OPAPI_SIMD_X86_AVX2_H_

#include <immintrin.h>
#include <stdint.h>

#define HG_W 8
typedef __m256 hgv;
typedef __m256 hgm;

/* Every store of a vector goes through these two: plain unaligned stores, or, in the build
 * with HG_SIMD_STREAM (the kernels' streaming-store twins), stores that bypass the caches and
 * need an address aligned to their width (hg_simd.h says who guarantees it). */
#if defined(HG_SIMD_STREAM)
#define HGV_ST256_(p, v) _mm256_stream_si256((__m256i *)(void *)(p), (v))
#define HGV_ST128_(p, v) _mm_stream_si128((__m128i *)(void *)(p), (v))
#else
#define HGV_ST256_(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define HGV_ST128_(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#endif

static inline hgv hgv_ld_f32(const float *p) { return _mm256_loadu_ps(p); }
static inline hgv hgv_ld_bits(const uint32_t *p)
{
    return _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(const void *)p));
}
static inline hgv hgv_ld_f16(const uint16_t *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)p));
}
static inline hgv hgv_ld_bf16(const uint16_t *p)
{
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

static inline __m128i hgv_pack16_(__m256i w)   /* low 16 bits of each lane, in order */
{
    return _mm_packus_epi32(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

/* fp32 -> bf16 words in the low halves: ties away ((x + 0x8000) >> 16) or even; NaN quiet. */
static inline __m256i hgv_bf16_words_(hgv v, int even)
{
    __m256i x = _mm256_castps_si256(v);
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    __m256i add = _mm256_set1_epi32(0x8000);
    if (even) {
        __m256i odd = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
        add = _mm256_add_epi32(_mm256_set1_epi32(0x7fff), odd);
    }
    __m256i r = _mm256_add_epi32(x, _mm256_andnot_si256(nan, add));   /* NaN: no carry */
    r = _mm256_srli_epi32(r, 16);
    return _mm256_or_si256(r, _mm256_and_si256(nan, _mm256_set1_epi32(0x0040)));
}

/* fp32 -> fp16 words with ties away from zero (hg_f32_to_f16_rna). */
static inline __m256i hgv_f16_rna_words_(hgv v)
{
    __m256i x = _mm256_castps_si256(v);
    __m256i ax = _mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff));
    __m256i sign = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(0x8000));
    __m256i norm = _mm256_sub_epi32(_mm256_srli_epi32(_mm256_add_epi32(ax, _mm256_set1_epi32(0x1000)), 13),
                                    _mm256_set1_epi32(112 << 10));
    __m256 y = _mm256_add_ps(_mm256_mul_ps(_mm256_castsi256_ps(ax), _mm256_set1_ps(0x1p24f)), _mm256_set1_ps(0.5f));
    __m256i sub = _mm256_cvttps_epi32(_mm256_min_ps(y, _mm256_set1_ps(2048.0f)));
    __m256i nanw = _mm256_or_si256(_mm256_set1_epi32(0x7e00), _mm256_and_si256(_mm256_srli_epi32(ax, 13),
                                                                                  _mm256_set1_epi32(0x3ff)));
    __m256i is_sub = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x38800000), ax);
    __m256i is_ovf = _mm256_cmpgt_epi32(ax, _mm256_set1_epi32(0x477fefff));
    __m256i is_nan = _mm256_cmpgt_epi32(ax, _mm256_set1_epi32(0x7f800000));
    __m256i r = _mm256_blendv_epi8(norm, sub, is_sub);
    r = _mm256_blendv_epi8(r, _mm256_set1_epi32(0x7c00), is_ovf);
    r = _mm256_blendv_epi8(r, nanw, is_nan);
    return _mm256_or_si256(r, sign);
}

static inline void hgv_st_f32(float *p, hgv v) { HGV_ST256_(p, _mm256_castps_si256(v)); }
/* 256 raw bits (sixteen 16-bit words, eight 32-bit ones) to p. */
static inline void hgv_st_i256(void *p, __m256i v) { HGV_ST256_(p, v); }
static inline void hgv_st_f16_rne(uint16_t *p, hgv v)
{
    HGV_ST128_(p, _mm256_cvtps_ph(v, 0));
}
static inline void hgv_st_f16_rna(uint16_t *p, hgv v)
{
    HGV_ST128_(p, hgv_pack16_(hgv_f16_rna_words_(v)));
}
static inline void hgv_st_bf16_rna(uint16_t *p, hgv v)
{
    HGV_ST128_(p, hgv_pack16_(hgv_bf16_words_(v, 0)));
}
static inline void hgv_st_bf16_rne(uint16_t *p, hgv v)
{
    HGV_ST128_(p, hgv_pack16_(hgv_bf16_words_(v, 1)));
}
static inline hgv hgv_rt_f16_rne(hgv v) { return _mm256_cvtph_ps(_mm256_cvtps_ph(v, 0)); }
static inline hgv hgv_rt_bf16_rna(hgv v)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(hgv_bf16_words_(v, 0), 16));
}
static inline hgv hgv_rt_bf16_rne(hgv v)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(hgv_bf16_words_(v, 1), 16));
}

static inline hgv hgv_set1(float x) { return _mm256_set1_ps(x); }
static inline hgv hgv_add(hgv a, hgv b) { return _mm256_add_ps(a, b); }
static inline hgv hgv_mul(hgv a, hgv b) { return _mm256_mul_ps(a, b); }
static inline hgv hgv_min(hgv a, hgv b) { return _mm256_min_ps(a, b); }
static inline hgv hgv_max(hgv a, hgv b) { return _mm256_max_ps(a, b); }
static inline hgv hgv_abs(hgv a)
{
    return _mm256_and_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)));
}
static inline hgm hgv_gt(hgv a, hgv b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
static inline hgm hgv_ge(hgv a, hgv b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
static inline hgm hgv_lt(hgv a, hgv b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static inline hgm hgv_le(hgv a, hgv b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
static inline hgm hgm_and(hgm a, hgm b) { return _mm256_and_ps(a, b); }
static inline hgm hgm_or(hgm a, hgm b) { return _mm256_or_ps(a, b); }
static inline hgm hgm_not(hgm a) { return _mm256_xor_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(-1))); }
static inline hgv hgv_sel(hgm m, hgv a, hgv b) { return _mm256_blendv_ps(b, a, m); }

static inline void hgv_keep32(uint32_t *o, const uint32_t *g, hgm m)
{
    __m256i gw = _mm256_loadu_si256((const __m256i *)(const void *)g);
    HGV_ST256_(o, _mm256_and_si256(gw, _mm256_castps_si256(m)));
}
static inline void hgv_keep16(uint16_t *o, const uint16_t *g, hgm m)
{
    __m256i k = _mm256_castps_si256(m);
    __m128i k16 = _mm_packs_epi32(_mm256_castsi256_si128(k), _mm256_extracti128_si256(k, 1));
    __m128i gw = _mm_loadu_si128((const __m128i *)(const void *)g);
    HGV_ST128_(o, _mm_and_si128(gw, k16));
}

#endif /* PYACL_HARDGRAD_OPAPI_SIMD_X86_AVX2_H_ */
