/*
 * AVX-512 (F/BW/VL/DQ) + F16C kernels (16 fp32 lanes); same rounding rules as the AVX2
 * file: vcvtps2ph with imm 0 (nearest even) for fp16, integer ops for bf16's ties away.
 */
#include <immintrin.h>

#include "kernel_math.h"

#define HG_PFX avx512
#define HG_W 16
#define HG_V __m512

static inline __m512 v_ld_f16(const uint16_t *p)
{
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)p));
}

static inline __m512 v_ld_bf16(const uint16_t *p)
{
    __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}

/* fp32 bits -> bf16 bits in the low half of each lane: (bits + 0x8000) >> 16, NaN quiet. */
static inline __m512i v_bf16_words(__m512 v)
{
    __m512i x = _mm512_castps_si512(v);
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(0x8000)), 16);
    __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff)),
                                            _mm512_set1_epi32(0x7f800000));
    __m512i q = _mm512_or_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(0x0040));
    return _mm512_mask_blend_epi32(nan, r, q);
}

static inline void v_st_f16(uint16_t *p, __m512 v)
{
    _mm256_storeu_si256((__m256i *)(void *)p, _mm512_cvtps_ph(v, 0));
}

static inline void v_st_bf16(uint16_t *p, __m512 v)
{
    _mm256_storeu_si256((__m256i *)(void *)p, _mm512_cvtepi32_epi16(v_bf16_words(v)));
}

static inline __m512 v_rt_f16(__m512 v)
{
    return _mm512_cvtph_ps(_mm512_cvtps_ph(v, 0));
}

static inline __m512 v_rt_bf16(__m512 v)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(v_bf16_words(v), 16));
}

static inline __m512 v_hs(__m512 g, __m512 s)
{
    const __m512 sixth = _mm512_set1_ps(HG_SIXTH);
    __m512 t = _mm512_mul_ps(s, sixth);
    t = _mm512_add_ps(t, _mm512_set1_ps(0.5f));
    __m512 r = _mm512_mul_ps(g, sixth);
    __mmask16 keep = _mm512_cmp_ps_mask(t, _mm512_setzero_ps(), _CMP_GT_OQ) &
                     _mm512_cmp_ps_mask(t, _mm512_set1_ps(1.0f), _CMP_LT_OQ);
    return _mm512_maskz_mov_ps(keep, r);
}

static inline __mmask16 v_ht_keep(__m512 s, __m512 lo, __m512 hi)
{
    __mmask16 inside = _mm512_cmp_ps_mask(s, lo, _CMP_GT_OQ) & _mm512_cmp_ps_mask(s, hi, _CMP_LT_OQ);
    return inside | _mm512_cmp_ps_mask(s, s, _CMP_UNORD_Q);
}

static inline void v_ht32(uint32_t *o, const uint32_t *g, __m512 s, __m512 lo, __m512 hi)
{
    __m512i gw = _mm512_loadu_si512((const void *)g);
    _mm512_storeu_si512((void *)o, _mm512_maskz_mov_epi32(v_ht_keep(s, lo, hi), gw));
}

static inline void v_ht16(uint16_t *o, const uint16_t *g, __m512 s, __m512 lo, __m512 hi)
{
    __m256i gw = _mm256_loadu_si256((const __m256i *)(const void *)g);
    _mm256_storeu_si256((__m256i *)(void *)o, _mm256_maskz_mov_epi16(v_ht_keep(s, lo, hi), gw));
}

#define HG_V_LD_F32(p) _mm512_loadu_ps(p)
#define HG_V_LD_F32_BITS(p) _mm512_castsi512_ps(_mm512_loadu_si512((const void *)(p)))
#define HG_V_LD_F16(p) v_ld_f16(p)
#define HG_V_LD_BF16(p) v_ld_bf16(p)
#define HG_V_ST_F32(p, v) _mm512_storeu_ps(p, v)
#define HG_V_ST_F16(p, v) v_st_f16(p, v)
#define HG_V_ST_BF16(p, v) v_st_bf16(p, v)
#define HG_V_RT_F16(v) v_rt_f16(v)
#define HG_V_RT_BF16(v) v_rt_bf16(v)
#define HG_V_SET1(x) _mm512_set1_ps(x)
#define HG_V_HS(g, s) v_hs(g, s)
#define HG_V_HT32(o, g, s, lo, hi) v_ht32(o, g, s, lo, hi)
#define HG_V_HT16(o, g, s, lo, hi) v_ht16(o, g, s, lo, hi)

#include "kernels_simd.h"
