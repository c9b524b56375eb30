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

/* HardsigmoidBackward: g/6 where s is inside kernel_math.h's keep interval (t not computed). */
static inline __m256 v_hs(__m256 g, __m256 s)
{
    __m256 r = _mm256_mul_ps(g, _mm256_set1_ps(HG_SIXTH));
    __m256 keep = _mm256_and_ps(_mm256_cmp_ps(s, _mm256_set1_ps(HG_HS_KEEP_MIN), _CMP_GE_OQ),
                                _mm256_cmp_ps(s, _mm256_set1_ps(HG_HS_KEEP_MAX), _CMP_LE_OQ));
    return _mm256_and_ps(r, keep);
}

/* lo < s < hi or NaN, for bounds passed through hg_ht_unordered_bounds. */
static inline __m256 v_ht_keep(__m256 s, __m256 lo, __m256 hi)
{
    return _mm256_and_ps(_mm256_cmp_ps(s, lo, _CMP_NLE_UQ), _mm256_cmp_ps(s, hi, _CMP_NGE_UQ));
}

static inline void v_ht32(uint32_t *o, const uint32_t *g, __m256 s, __m256 lo, __m256 hi)
{
    __m256i gw = _mm256_loadu_si256((const __m256i *)(const void *)g);
    __m256i keep = _mm256_castps_si256(v_ht_keep(s, lo, hi));
    _mm256_storeu_si256((__m256i *)(void *)o, _mm256_and_si256(gw, keep));
}

/* The 16-bit kernels below come in two flavours: ordinary stores, and (nt = 1) stores that
 * bypass the caches for tensors much larger than them (hg_ew_run chooses), which saves
 * reading every output line before it is overwritten.  Streaming stores need 32-byte
 * aligned addresses, so a misaligned head goes element by element, and they are ordered
 * with an sfence before the range is reported done. */
static inline void v_st16x16(uint16_t *p, __m256i v, int nt)
{
    if (nt) {
        _mm256_stream_si256((__m256i *)(void *)p, v);
    } else {
        _mm256_storeu_si256((__m256i *)(void *)p, v);
    }
}

/* First index from `begin` (at most `end`) where streaming stores into o may start. */
static inline size_t v_nt_head(const uint16_t *o, size_t begin, size_t end, int nt)
{
    size_t i = begin;
    if (nt) {
        while (i < end && ((uintptr_t)(const void *)(o + i) & 31u) != 0) {
            i++;
        }
    }
    return i;
}

static inline uint16_t hs_bf16_one(uint16_t g, uint16_t s)
{
    return HG_ST_BF16_BF16(hg_hardsigmoid_grad(HG_LD_BF16(g), HG_LD_BF16(s)));
}

/* bf16 x bf16 -> bf16 HardsigmoidBackward, 16 elements per step.  Each 32-bit lane holds
 * two bf16 words: shifting the even one up (or masking the odd one's low half away) gives
 * its exact fp32 value in place, and the two results go back into their own halves with
 * one 16-bit blend, so no pack or lane-crossing shuffle is needed; the keep test is done
 * on the 16-bit self words (kernel_math.h).  The rounding needs no NaN case here: a NaN g
 * is a bf16 word (low 16 bits zero), g/6 is that NaN quieted, and adding 0x8000 to it
 * carries nothing, which is convert.h's (x >> 16) | 0x40. */
static inline void hs_bf16_run(const void *grad, const void *self, void *out, size_t begin, size_t end, int nt)
{
    const uint16_t *g = grad;
    const uint16_t *s = self;
    uint16_t *o = out;
    size_t i = v_nt_head(o, begin, end, nt);
    for (size_t k = begin; k < i; k++) {
        o[k] = hs_bf16_one(g[k], s[k]);
    }
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
        v_st16x16(o + i, _mm256_and_si256(res, keep), nt);
    }
    for (; i < end; i++) {
        o[i] = hs_bf16_one(g[i], s[i]);
    }
    if (nt) {
        _mm_sfence();
    }
}

static void hs_bf16_x16(const void *grad, const void *self, void *out, size_t begin, size_t end)
{
    hs_bf16_run(grad, self, out, begin, end, 0);
}

static void hs_bf16_x16_nt(const void *grad, const void *self, void *out, size_t begin, size_t end)
{
    hs_bf16_run(grad, self, out, begin, end, 1);
}

#define HG_HS_BF16_BF16_BF16 hs_bf16_x16

static inline uint16_t hs_f16_one(uint16_t g, uint16_t s)
{
    return HG_ST_F16_F16(hg_hardsigmoid_grad(HG_LD_F16(g), HG_LD_F16(s)));
}

/* fp16 x fp16 -> fp16 HardsigmoidBackward, 16 elements per step: only gradOutput goes
 * through fp32 (F16C); the keep test is done on the 16-bit self words (kernel_math.h), and
 * masking after the rounding is the same since a dropped lane rounds to +0 either way. */
static inline void hs_f16_run(const void *grad, const void *self, void *out, size_t begin, size_t end, int nt)
{
    const uint16_t *g = grad;
    const uint16_t *s = self;
    uint16_t *o = out;
    size_t i = v_nt_head(o, begin, end, nt);
    for (size_t k = begin; k < i; k++) {
        o[k] = hs_f16_one(g[k], s[k]);
    }
    const __m256 sixth = _mm256_set1_ps(HG_SIXTH);
    const __m256i abs_mask = _mm256_set1_epi16(0x7fff), abs_lim = _mm256_set1_epi16(HG_HS_KEEP_F16_ABS_LT);
    for (; i + 16 <= end; i += 16) {
        __m256i sw = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256i keep = _mm256_cmpgt_epi16(abs_lim, _mm256_and_si256(sw, abs_mask));
        __m128i rlo = _mm256_cvtps_ph(_mm256_mul_ps(v_ld_f16(g + i), sixth), 0);
        __m128i rhi = _mm256_cvtps_ph(_mm256_mul_ps(v_ld_f16(g + i + 8), sixth), 0);
        __m256i res = _mm256_inserti128_si256(_mm256_castsi128_si256(rlo), rhi, 1);
        v_st16x16(o + i, _mm256_and_si256(res, keep), nt);
    }
    for (; i < end; i++) {
        o[i] = hs_f16_one(g[i], s[i]);
    }
    if (nt) {
        _mm_sfence();
    }
}

static void hs_f16_x16(const void *grad, const void *self, void *out, size_t begin, size_t end)
{
    hs_f16_run(grad, self, out, begin, end, 0);
}

static void hs_f16_x16_nt(const void *grad, const void *self, void *out, size_t begin, size_t end)
{
    hs_f16_run(grad, self, out, begin, end, 1);
}

#define HG_HS_F16_F16_F16 hs_f16_x16

/* 16-bit HardtanhBackward (bf16 or fp16 self and gradOutput), 16 elements per step: the keep
 * masks of the 16 self words (as fp32), packed to 16 bits, select the gradOutput words.
 * bf16 words widen in place by interleaving them with zeros, and the in-lane pack of the two
 * masks then lines up with the words; fp16 words widen by F16C in two halves, whose pack
 * interleaves 64-bit blocks, which one permute puts back in order. */
static inline uint16_t ht16_one(uint16_t g, uint16_t s, float lo, float hi, int bf16)
{
    return (uint16_t)(g & hg_keep_mask32(bf16 ? hg_bf16_to_f32(s) : hg_f16_to_f32(s), lo, hi));
}

static inline void ht16_run(const void *grad, const void *self, void *out, float lo, float hi, size_t begin,
                            size_t end, int bf16, int nt)
{
    const uint16_t *g = grad;
    const uint16_t *s = self;
    uint16_t *o = out;
    size_t i = v_nt_head(o, begin, end, nt);
    for (size_t k = begin; k < i; k++) {
        o[k] = ht16_one(g[k], s[k], lo, hi, bf16);
    }
    const __m256i zero = _mm256_setzero_si256();
    float vl = lo, vh = hi;
    hg_ht_unordered_bounds(&vl, &vh);
    const __m256 vlo = _mm256_set1_ps(vl), vhi = _mm256_set1_ps(vh);
    for (; i + 16 <= end; i += 16) {
        __m256i gw = _mm256_loadu_si256((const __m256i *)(const void *)(g + i));
        __m256i sw = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        __m256 s0, s1;
        if (bf16) {
            s0 = _mm256_castsi256_ps(_mm256_unpacklo_epi16(zero, sw));
            s1 = _mm256_castsi256_ps(_mm256_unpackhi_epi16(zero, sw));
        } else {
            s0 = _mm256_cvtph_ps(_mm256_castsi256_si128(sw));
            s1 = _mm256_cvtph_ps(_mm256_extracti128_si256(sw, 1));
        }
        __m256i k = _mm256_packs_epi32(_mm256_castps_si256(v_ht_keep(s0, vlo, vhi)),
                                       _mm256_castps_si256(v_ht_keep(s1, vlo, vhi)));
        if (!bf16) {
            k = _mm256_permute4x64_epi64(k, 0xD8);
        }
        v_st16x16(o + i, _mm256_and_si256(gw, k), nt);
    }
    for (; i < end; i++) {
        o[i] = ht16_one(g[i], s[i], lo, hi, bf16);
    }
    if (nt) {
        _mm_sfence();
    }
}

static void ht_bf16_x16(const void *grad, const void *self, void *out, float lo, float hi, size_t begin,
                        size_t end)
{
    ht16_run(grad, self, out, lo, hi, begin, end, 1, 0);
}

static void ht_bf16_x16_nt(const void *grad, const void *self, void *out, float lo, float hi, size_t begin,
                           size_t end)
{
    ht16_run(grad, self, out, lo, hi, begin, end, 1, 1);
}

static void ht_f16_x16(const void *grad, const void *self, void *out, float lo, float hi, size_t begin,
                       size_t end)
{
    ht16_run(grad, self, out, lo, hi, begin, end, 0, 0);
}

static void ht_f16_x16_nt(const void *grad, const void *self, void *out, float lo, float hi, size_t begin,
                          size_t end)
{
    ht16_run(grad, self, out, lo, hi, begin, end, 0, 1);
}

#define HG_HT_BF16 ht_bf16_x16
#define HG_HT_F16 ht_f16_x16

/* Streaming-store variants (see v_st16x16); NULL where there is none. */
hg_hardtanh_fn hg_avx2_hardtanh_kernel_nt(aclDataType dtype)
{
    if (dtype == ACL_BF16) {
        return ht_bf16_x16_nt;
    }
    return dtype == ACL_FLOAT16 ? ht_f16_x16_nt : NULL;
}

hg_hardsigmoid_fn hg_avx2_hardsigmoid_kernel_nt(aclDataType grad, aclDataType self, aclDataType out)
{
    if (grad == ACL_BF16 && self == ACL_BF16 && out == ACL_BF16) {
        return hs_bf16_x16_nt;
    }
    if (grad == ACL_FLOAT16 && self == ACL_FLOAT16 && out == ACL_FLOAT16) {
        return hs_f16_x16_nt;
    }
    return NULL;
}

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
/* no HG_V_HT16: both 16-bit hardtanh kernels are the specialised ones above */

#include "kernels_simd.h"
