/*
 * HardtanhBackward's SIMD kernels over hg_simd.h's primitives (compiled once per path).
 * The keep test is "not s <= lo and not s >= hi" with hg_ht_unordered_bounds, which keeps
 * NaN self without a separate test; the selected gradOutput words are copied bit for bit.
 * On AVX2 the 16-bit kernels are specialised (16 per step).
 */
#include "hg_simd.h"
#include "hardtanh_grad.h"

static inline hgm ht_keep(hgv s, hgv lo, hgv hi)
{
    return hgm_and(hgm_not(hgv_le(s, lo)), hgm_not(hgv_ge(s, hi)));
}

#define HT_SIMD(T, W, VLD, SLD, KEEP)                                                               \
    static void ht_##T(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end) \
    {                                                                                               \
        const W *g = in[0];                                                                         \
        const W *s = in[1];                                                                         \
        W *o = out;                                                                                 \
        float lo = p->f[0], hi = p->f[1];                                                           \
        size_t i = begin;                                                                           \
        if (end - begin >= HG_W) {                                                                  \
            float vl = lo, vh = hi;                                                                 \
            hg_ht_unordered_bounds(&vl, &vh);                                                       \
            const hgv vlo = hgv_set1(vl), vhi = hgv_set1(vh);                                       \
            for (; i + HG_W <= end; i += HG_W) {                                                    \
                KEEP(o + i, g + i, ht_keep(VLD(s + i), vlo, vhi));                                  \
            }                                                                                       \
        }                                                                                           \
        for (; i < end; i++) {                                                                      \
            o[i] = (W)(g[i] & hg_ht_keep_mask(SLD(s[i]), lo, hi));                                  \
        }                                                                                           \
    }

HT_SIMD(F32, uint32_t, hgv_ld_bits, hg_bits_f32, hgv_keep32)
#if !defined(HG_SIMD_AVX2)
HT_SIMD(F16, uint16_t, hgv_ld_f16, hg_f16_to_f32, hgv_keep16)
HT_SIMD(BF16, uint16_t, hgv_ld_bf16, hg_bf16_to_f32, hgv_keep16)
#define HT_F16 ht_F16
#define HT_BF16 ht_BF16
#else
/* 16-bit HardtanhBackward, 16 elements per step: the keep masks of the 16 self words (as
 * fp32), packed to 16 bits, select the gradOutput words.  bf16 words widen in place by
 * interleaving them with zeros, and the in-lane pack of the two masks then lines up with the
 * words; fp16 words widen by F16C in two halves, whose pack interleaves 64-bit blocks, which
 * one permute puts back in order. */
static inline uint16_t ht16_one(uint16_t g, uint16_t s, float lo, float hi, int bf16)
{
    return (uint16_t)(g & hg_ht_keep_mask(bf16 ? hg_bf16_to_f32(s) : hg_f16_to_f32(s), lo, hi));
}

static inline void ht16_run(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end,
                            int bf16)
{
    const uint16_t *g = in[0];
    const uint16_t *s = in[1];
    uint16_t *o = out;
    float lo = p->f[0], hi = p->f[1];
    size_t i = begin;
    const __m256i zero = _mm256_setzero_si256();
    float vl = lo, vh = hi;
    hg_ht_unordered_bounds(&vl, &vh);
    const hgv vlo = hgv_set1(vl), vhi = hgv_set1(vh);
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
        __m256i k = _mm256_packs_epi32(_mm256_castps_si256(ht_keep(s0, vlo, vhi)),
                                       _mm256_castps_si256(ht_keep(s1, vlo, vhi)));
        if (!bf16) {
            k = _mm256_permute4x64_epi64(k, 0xD8);
        }
        hgv_st_i256(o + i, _mm256_and_si256(gw, k));
    }
    for (; i < end; i++) {
        o[i] = ht16_one(g[i], s[i], lo, hi, bf16);
    }
}

static void ht_bf16_x16(const void *const *in, void *out, const hg_params *p, size_t b, size_t e)
{
    ht16_run(in, out, p, b, e, 1);
}
static void ht_f16_x16(const void *const *in, void *out, const hg_params *p, size_t b, size_t e)
{
    ht16_run(in, out, p, b, e, 0);
}
#define HT_F16 ht_f16_x16
#define HT_BF16 ht_bf16_x16
#endif

const hg_kernel_entry HG_SIMD_SYM(hg_hardtanh_grad)[] = {
    HG_ROW2(F32, F32, F32, ht_F32),
    HG_ROW2(F16, F16, F16, HT_F16),
    HG_ROW2(BF16, BF16, BF16, HT_BF16),
    HG_ROW_END,
};
