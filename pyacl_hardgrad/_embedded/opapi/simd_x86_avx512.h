/*
 * hg_simd.h's primitives for AVX-512 F/BW/VL/DQ + F16C (16 fp32 lanes, __mmask16 masks);
 * the rounding rules of the AVX2 file (vcvtps2ph imm 0 for fp16 RNE, integer ops else).
 */
#ifndef PYACL_HARDGRAD_OPAPI_SIMD_X86_AVX512_H_
#define PYACL_HARDGRAD_OPAPI_SIMD_X86_AVX512_H_

#include <immintrin.h>
#include <stdint.h>

#define HG_W 16
typedef __m512 hgv;
typedef __mmask16 hgm;

/* Every vector store goes through these (as in the AVX2 file: streaming under HG_SIMD_STREAM). */
#if defined(HG_SIMD_STREAM)
#define HGV_ST512_(p, v) _mm512_stream_si512((void *)(p), (v))
#define HGV_ST256_(p, v) _mm256_stream_si256((__m256i *)(void *)(p), (v))
#else
#define HGV_ST512_(p, v) _mm512_storeu_si512((void *)(p), (v))
#define HGV_ST256_(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#endif

static inline hgv hgv_ld_f32(const float *p) { return _mm512_loadu_ps(p); }
static inline hgv hgv_ld_bits(const uint32_t *p) { return _mm512_castsi512_ps(_mm512_loadu_si512((const void *)p)); }
static inline hgv hgv_ld_f16(const uint16_t *p)
{
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)p));
}
static inline hgv hgv_ld_bf16(const uint16_t *p)
{
    __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}

static inline __m512i hgv_bf16_words_(hgv v, int even)
{
    __m512i x = _mm512_castps_si512(v);
    __m512i add = _mm512_set1_epi32(0x8000);
    if (even) {
        add = _mm512_add_epi32(_mm512_set1_epi32(0x7fff), _mm512_and_si512(_mm512_srli_epi32(x, 16),
                                                                           _mm512_set1_epi32(1)));
    }
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(x, add), 16);
    __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff)),
                                            _mm512_set1_epi32(0x7f800000));
    __m512i q = _mm512_or_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(0x0040));
    return _mm512_mask_blend_epi32(nan, r, q);
}

static inline __m512i hgv_f16_rna_words_(hgv v)
{
    __m512i x = _mm512_castps_si512(v);
    __m512i ax = _mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff));
    __m512i sign = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(0x8000));
    __m512i r = _mm512_sub_epi32(_mm512_srli_epi32(_mm512_add_epi32(ax, _mm512_set1_epi32(0x1000)), 13),
                                 _mm512_set1_epi32(112 << 10));
    __m512 y = _mm512_add_ps(_mm512_mul_ps(_mm512_castsi512_ps(ax), _mm512_set1_ps(0x1p24f)), _mm512_set1_ps(0.5f));
    __m512i sub = _mm512_cvttps_epi32(_mm512_min_ps(y, _mm512_set1_ps(2048.0f)));
    __m512i nanw = _mm512_or_si512(_mm512_set1_epi32(0x7e00), _mm512_and_si512(_mm512_srli_epi32(ax, 13),
                                                                                  _mm512_set1_epi32(0x3ff)));
    r = _mm512_mask_blend_epi32(_mm512_cmplt_epi32_mask(ax, _mm512_set1_epi32(0x38800000)), r, sub);
    r = _mm512_mask_blend_epi32(_mm512_cmpgt_epi32_mask(ax, _mm512_set1_epi32(0x477fefff)), r,
                                _mm512_set1_epi32(0x7c00));
    r = _mm512_mask_blend_epi32(_mm512_cmpgt_epi32_mask(ax, _mm512_set1_epi32(0x7f800000)), r, nanw);
    return _mm512_or_si512(r, sign);
}

static inline void hgv_st_f32(float *p, hgv v) { HGV_ST512_(p, _mm512_castps_si512(v)); }
static inline void hgv_st_f16_rne(uint16_t *p, hgv v)
{
    HGV_ST256_(p, _mm512_cvtps_ph(v, 0));
}
static inline void hgv_st_f16_rna(uint16_t *p, hgv v)
{
    HGV_ST256_(p, _mm512_cvtepi32_epi16(hgv_f16_rna_words_(v)));
}
static inline void hgv_st_bf16_rna(uint16_t *p, hgv v)
{
    HGV_ST256_(p, _mm512_cvtepi32_epi16(hgv_bf16_words_(v, 0)));
}
static inline void hgv_st_bf16_rne(uint16_t *p, hgv v)
{
    HGV_ST256_(p, _mm512_cvtepi32_epi16(hgv_bf16_words_(v, 1)));
}
static inline hgv hgv_rt_f16_rne(hgv v) { return _mm512_cvtph_ps(_mm512_cvtps_ph(v, 0)); }
static inline hgv hgv_rt_bf16_rna(hgv v)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(hgv_bf16_words_(v, 0), 16));
}
static inline hgv hgv_rt_bf16_rne(hgv v)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(hgv_bf16_words_(v, 1), 16));
}

static inline hgv hgv_set1(float x) { return _mm512_set1_ps(x); }
static inline hgv hgv_add(hgv a, hgv b) { return _mm512_add_ps(a, b); }
static inline hgv hgv_mul(hgv a, hgv b) { return _mm512_mul_ps(a, b); }
static inline hgv hgv_min(hgv a, hgv b) { return _mm512_min_ps(a, b); }
static inline hgv hgv_max(hgv a, hgv b) { return _mm512_max_ps(a, b); }
static inline hgv hgv_abs(hgv a)
{
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_set1_epi32(0x7fffffff)));
}
static inline hgm hgv_gt(hgv a, hgv b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
static inline hgm hgv_ge(hgv a, hgv b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
static inline hgm hgv_lt(hgv a, hgv b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
static inline hgm hgv_le(hgv a, hgv b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
static inline hgm hgm_and(hgm a, hgm b) { return (hgm)(a & b); }
static inline hgm hgm_or(hgm a, hgm b) { return (hgm)(a | b); }
static inline hgm hgm_not(hgm a) { return (hgm)~a; }
static inline hgv hgv_sel(hgm m, hgv a, hgv b) { return _mm512_mask_blend_ps(m, b, a); }

static inline void hgv_keep32(uint32_t *o, const uint32_t *g, hgm m)
{
    HGV_ST512_(o, _mm512_maskz_mov_epi32(m, _mm512_loadu_si512((const void *)g)));
}
static inline void hgv_keep16(uint16_t *o, const uint16_t *g, hgm m)
{
    __m256i gw = _mm256_loadu_si256((const __m256i *)(const void *)g);
    HGV_ST256_(o, _mm256_maskz_mov_epi16(m, gw));
}

#endif /* PYACL_HARDGRAD_OPAPI_SIMD_X86_AVX512_H_ */
