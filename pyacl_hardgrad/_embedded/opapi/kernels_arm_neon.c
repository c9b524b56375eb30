/*
 * NEON kernels for aarch64 (4 fp32 lanes; NEON is baseline there).  fp16 conversions
 * use FCVTL/FCVTN, which follow FPCR: Linux starts threads with round-to-nearest-even,
 * no flush-to-zero and NaN propagation (quieted, top payload bits kept) = convert.h's
 * rules.  bf16 rounding (ties away) is done with integer ops on the fp32 bits.
 */
#include <arm_neon.h>

#include "kernel_math.h"

#define HG_PFX neon
#define HG_W 4
#define HG_V float32x4_t

static inline float32x4_t v_ld_f16(const uint16_t *p)
{
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)));
}

static inline float32x4_t v_ld_bf16(const uint16_t *p)
{
    return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16));
}

static inline uint32x4_t v_bf16_words(float32x4_t v)
{
    uint32x4_t x = vreinterpretq_u32_f32(v);
    uint32x4_t r = vshrq_n_u32(vaddq_u32(x, vdupq_n_u32(0x8000u)), 16);
    uint32x4_t nan = vcgtq_u32(vandq_u32(x, vdupq_n_u32(0x7fffffffu)), vdupq_n_u32(0x7f800000u));
    uint32x4_t q = vorrq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(0x0040u));
    return vbslq_u32(nan, q, r);
}

static inline void v_st_f16(uint16_t *p, float32x4_t v)
{
    vst1_u16(p, vreinterpret_u16_f16(vcvt_f16_f32(v)));
}

static inline void v_st_bf16(uint16_t *p, float32x4_t v)
{
    vst1_u16(p, vmovn_u32(v_bf16_words(v)));
}

static inline float32x4_t v_rt_f16(float32x4_t v)
{
    return vcvt_f32_f16(vcvt_f16_f32(v));
}

static inline float32x4_t v_rt_bf16(float32x4_t v)
{
    return vreinterpretq_f32_u32(vshlq_n_u32(v_bf16_words(v), 16));
}

static inline float32x4_t v_hs(float32x4_t g, float32x4_t s)
{
    const float32x4_t sixth = vdupq_n_f32(HG_SIXTH);
    float32x4_t t = vmulq_f32(s, sixth);
    t = vaddq_f32(t, vdupq_n_f32(0.5f));
    float32x4_t r = vmulq_f32(g, sixth);
    uint32x4_t keep = vandq_u32(vcgtq_f32(t, vdupq_n_f32(0.0f)), vcltq_f32(t, vdupq_n_f32(1.0f)));
    return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(r), keep));
}

static inline uint32x4_t v_ht_keep(float32x4_t s, float32x4_t lo, float32x4_t hi)
{
    uint32x4_t inside = vandq_u32(vcgtq_f32(s, lo), vcltq_f32(s, hi));
    return vorrq_u32(inside, vmvnq_u32(vceqq_f32(s, s)));
}

static inline void v_ht32(uint32_t *o, const uint32_t *g, float32x4_t s, float32x4_t lo, float32x4_t hi)
{
    vst1q_u32(o, vandq_u32(vld1q_u32(g), v_ht_keep(s, lo, hi)));
}

static inline void v_ht16(uint16_t *o, const uint16_t *g, float32x4_t s, float32x4_t lo, float32x4_t hi)
{
    vst1_u16(o, vand_u16(vld1_u16(g), vmovn_u32(v_ht_keep(s, lo, hi))));
}

#define HG_V_LD_F32(p) vld1q_f32(p)
#define HG_V_LD_F32_BITS(p) vreinterpretq_f32_u32(vld1q_u32(p))
#define HG_V_LD_F16(p) v_ld_f16(p)
#define HG_V_LD_BF16(p) v_ld_bf16(p)
#define HG_V_ST_F32(p, v) vst1q_f32(p, v)
#define HG_V_ST_F16(p, v) v_st_f16(p, v)
#define HG_V_ST_BF16(p, v) v_st_bf16(p, v)
#define HG_V_RT_F16(v) v_rt_f16(v)
#define HG_V_RT_BF16(v) v_rt_bf16(v)
#define HG_V_SET1(x) vdupq_n_f32(x)
#define HG_V_HS(g, s) v_hs(g, s)
#define HG_V_HT32(o, g, s, lo, hi) v_ht32(o, g, s, lo, hi)
#define HG_V_HT16(o, g, s, lo, hi) v_ht16(o, g, s, lo, hi)

#include "kernels_simd.h"
