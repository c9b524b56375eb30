/*
 * fp16 / bf16 <-> fp32 conversions written on the bit patterns, so the results do not
 * depend on compiler support for half types or on the host's rounding hardware.
 *   fp16 <- fp32: hg_f32_to_f16 rounds to nearest, ties to even (CAST_RINT, also the
 *                 CAST_NONE of a narrowing cast); hg_f32_to_f16_rna ties away from zero
 *                 (CAST_ROUND).  Subnormals kept; overflow -> inf; NaN stays NaN.
 *   bf16 <- fp32: hg_f32_to_bf16 rounds to nearest, ties away from zero (CAST_ROUND, the
 *                 kernels' own narrowing); hg_f32_to_bf16_rne ties to even (CAST_RINT, also
 *                 the rule of the Cast step after a kernel).  NaN stays NaN (quiet).
 *   int32 -> fp32: hg_i32_to_f32_rint (CAST_RINT); fp32 -> int32: hg_f32_to_i32_trunc
 *                 (CAST_TRUNC), saturating, NaN -> 0.
 * Widening (fp16/bf16 -> fp32) is exact.
 */
#ifndef PYACL_HARDGRAD_OPAPI_CONVERT_H_
#define PYACL_HARDGRAD_OPAPI_CONVERT_H_

#include <stdint.h>
#include <string.h>

static inline uint32_t hg_f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static inline float hg_bits_f32(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static inline float hg_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t em = h & 0x7fffu;
    uint32_t bits;
    if (em >= 0x7c00u) {
        bits = (em << 13) | 0x7f800000u;            /* inf / NaN, payload kept */
    } else if (em >= 0x0400u) {
        bits = (em << 13) + 0x38000000u;            /* normal: rebias 15 -> 127 */
    } else {
        bits = hg_f32_bits((float)em * 0x1p-24f);   /* zero / subnormal, exact */
    }
    return hg_bits_f32(bits | sign);
}

static inline uint16_t hg_f32_to_f16(float f)
{
    uint32_t x = hg_f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) {                         /* NaN: quiet, top payload bits kept */
        return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    }
    if (ax >= 0x47800000u) {                        /* >= 2^16 (or inf): overflow */
        return (uint16_t)(sign | 0x7c00u);
    }
    if (ax < 0x38800000u) {                         /* below fp16's smallest normal */
        if (ax <= 0x33000000u) {                    /* <= 2^-25: ties to even give 0 */
            return sign;
        }
        uint32_t e = ax >> 23;
        uint32_t m = (ax & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e;                  /* 14 .. 24 */
        uint32_t h = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (h & 1u))) {
            h++;
        }
        return (uint16_t)(sign | h);
    }
    uint32_t h = (ax >> 13) - (112u << 10);         /* rebias 127 -> 15 */
    uint32_t rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) {
        h++;                                        /* a carry may reach inf: correct */
    }
    return (uint16_t)(sign | h);
}

static inline float hg_bf16_to_f32(uint16_t b)
{
    return hg_bits_f32((uint32_t)b << 16);
}

static inline uint16_t hg_f32_to_bf16(float f)
{
    uint32_t x = hg_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) {
        return (uint16_t)((x >> 16) | 0x0040u);     /* NaN stays NaN (quiet) */
    }
    return (uint16_t)((x + 0x8000u) >> 16);         /* ties away from zero */
}

/* fp32 -> fp16, round to nearest with ties away from zero (CAST_ROUND). */
static inline uint16_t hg_f32_to_f16_rna(float f)
{
    uint32_t x = hg_f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) {
        return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    }
    if (ax >= 0x477ff000u) {                        /* >= 65520 (or inf): overflow */
        return (uint16_t)(sign | 0x7c00u);
    }
    if (ax < 0x38800000u) {                         /* subnormal or zero: |f| * 2^24, half away */
        float y = hg_bits_f32(ax) * 0x1p24f;        /* exact (a power of two), y < 1024 */
        return (uint16_t)(sign | (uint16_t)(uint32_t)(y + 0.5f));   /* y + 0.5 is exact too */
    }
    return (uint16_t)(sign | (((ax + 0x1000u) >> 13) - (112u << 10)));
}

/* fp32 -> bf16, round to nearest with ties to even (CAST_RINT). */
static inline uint16_t hg_f32_to_bf16_rne(float f)
{
    uint32_t x = hg_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) {
        return (uint16_t)((x >> 16) | 0x0040u);
    }
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* fp32 -> int32 toward zero (CAST_TRUNC); out-of-range values saturate, NaN gives 0. */
static inline int32_t hg_f32_to_i32_trunc(float f)
{
    if (f != f) {
        return 0;
    }
    if (f >= 2147483648.0f) {
        return INT32_MAX;
    }
    if (f <= -2147483648.0f) {
        return INT32_MIN;
    }
    return (int32_t)f;
}

static inline float hg_i32_to_f32_rint(int32_t v)
{
    return (float)v;   /* C's conversion rounds to nearest even under the default mode */
}

#endif /* PYACL_HARDGRAD_OPAPI_CONVERT_H_ */
