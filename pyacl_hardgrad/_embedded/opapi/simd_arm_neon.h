/*
 * hg_simd.h's primitives for NEON on aarch64 (4 fp32 lanes).  fp16 RNE uses FCVTN, which
 * follows FPCR: Linux starts threads with round-to-nearest-even, no flush-to-zero and NaN
 * propagation (quieted, top payload bits kept) = convert.h's rules.  The other roundings
 * are integer ops on the fp32 bits; min/max are compare + select (hg_min_f32's rule, not
 * FMIN's NaN propagation).
 */
#ifndef PYACL_HARDGRAD_OPAPI_SIMD_ARM_NEON_H_
#define PYACL_HARDGRAD_OPAPI_SIMD_ARM_NEON_H_

#include <arm_neon.h>
#include <stdint.h>

#define HG_W 4
typedef float32x4_t hgv;
typedef uint32x4_t hgm;

static inline hgv hgv_ld_f32(const float *p) { return vld1q_f32(p); }
static inline hgv hgv_ld_bits(const uint32_t *p) { return vreinterpretq_f32_u32(vld1q_u32(p)); }
static inline hgv hgv_ld_f16(const uint16_t *p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }
static inline hgv hgv_ld_bf16(const uint16_t *p) { return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16)); }

static inline uint32x4_t hgv_bf16_words_(hgv v, int even)
{
    uint32x4_t x = vreinterpretq_u32_f32(v);
    uint32x4_t add = vdupq_n_u32(0x8000u);
    if (even) {
        add = vaddq_u32(vdupq_n_u32(0x7fffu), vandq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(1u)));
    }
    uint32x4_t r = vshrq_n_u32(vaddq_u32(x, add), 16);
    uint32x4_t nan = vcgtq_u32(vandq_u32(x, vdupq_n_u32(0x7fffffffu)), vdupq_n_u32(0x7f800000u));
    uint32x4_t q = vorrq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(0x0040u));
    return vbslq_u32(nan, q, r);
}

static inline uint32x4_t hgv_f16_rna_words_(hgv v)
{
    uint32x4_t x = vreinterpretq_u32_f32(v);
    uint32x4_t ax = vandq_u32(x, vdupq_n_u32(0x7fffffffu));
    uint32x4_t sign = vandq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(0x8000u));
    uint32x4_t r = vsubq_u32(vshrq_n_u32(vaddq_u32(ax, vdupq_n_u32(0x1000u)), 13), vdupq_n_u32(112u << 10));
    float32x4_t y = vaddq_f32(vmulq_f32(vreinterpretq_f32_u32(ax), vdupq_n_f32(0x1p24f)), vdupq_n_f32(0.5f));
    uint32x4_t sub = vcvtq_u32_f32(vminq_f32(y, vdupq_n_f32(2048.0f)));
    uint32x4_t nanw = vorrq_u32(vdupq_n_u32(0x7e00u), vandq_u32(vshrq_n_u32(ax, 13), vdupq_n_u32(0x3ffu)));
    r = vbslq_u32(vcltq_u32(ax, vdupq_n_u32(0x38800000u)), sub, r);
    r = vbslq_u32(vcgtq_u32(ax, vdupq_n_u32(0x477fefffu)), vdupq_n_u32(0x7c00u), r);
    r = vbslq_u32(vcgtq_u32(ax, vdupq_n_u32(0x7f800000u)), nanw, r);
    return vorrq_u32(r, sign);
}

static inline void hgv_st_f32(float *p, hgv v) { vst1q_f32(p, v); }
static inline void hgv_st_f16_rne(uint16_t *p, hgv v) { vst1_u16(p, vreinterpret_u16_f16(vcvt_f16_f32(v))); }
static inline void hgv_st_f16_rna(uint16_t *p, hgv v) { vst1_u16(p, vmovn_u32(hgv_f16_rna_words_(v))); }
static inline void hgv_st_bf16_rna(uint16_t *p, hgv v) { vst1_u16(p, vmovn_u32(hgv_bf16_words_(v, 0))); }
static inline void hgv_st_bf16_rne(uint16_t *p, hgv v) { vst1_u16(p, vmovn_u32(hgv_bf16_words_(v, 1))); }
static inline hgv hgv_rt_f16_rne(hgv v) { return vcvt_f32_f16(vcvt_f16_f32(v)); }
static inline hgv hgv_rt_bf16_rna(hgv v) { return vreinterpretq_f32_u32(vshlq_n_u32(hgv_bf16_words_(v, 0), 16)); }
static inline hgv hgv_rt_bf16_rne(hgv v) { return vreinterpretq_f32_u32(vshlq_n_u32(hgv_bf16_words_(v, 1), 16)); }

static inline hgv hgv_set1(float x) { return vdupq_n_f32(x); }
static inline hgv hgv_add(hgv a, hgv b) { return vaddq_f32(a, b); }
static inline hgv hgv_mul(hgv a, hgv b) { return vmulq_f32(a, b); }
static inline hgv hgv_min(hgv a, hgv b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
static inline hgv hgv_max(hgv a, hgv b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }
static inline hgv hgv_abs(hgv a) { return vabsq_f32(a); }
static inline hgm hgv_gt(hgv a, hgv b) { return vcgtq_f32(a, b); }
static inline hgm hgv_ge(hgv a, hgv b) { return vcgeq_f32(a, b); }
static inline hgm hgv_lt(hgv a, hgv b) { return vcltq_f32(a, b); }
static inline hgm hgv_le(hgv a, hgv b) { return vcleq_f32(a, b); }
static inline hgm hgm_and(hgm a, hgm b) { return vandq_u32(a, b); }
static inline hgm hgm_or(hgm a, hgm b) { return vorrq_u32(a, b); }
static inline hgm hgm_not(hgm a) { return vmvnq_u32(a); }
static inline hgv hgv_sel(hgm m, hgv a, hgv b) { return vbslq_f32(m, a, b); }

static inline void hgv_keep32(uint32_t *o, const uint32_t *g, hgm m) { vst1q_u32(o, vandq_u32(vld1q_u32(g), m)); }
static inline void hgv_keep16(uint16_t *o, const uint16_t *g, hgm m)
{
    vst1_u16(o, vand_u16(vld1_u16(g), vmovn_u32(m)));
}

#endif /* PYACL_HARDGRAD_OPAPI_SIMD_ARM_NEON_H_ */
