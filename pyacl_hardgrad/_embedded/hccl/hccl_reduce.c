/* The reduction kernels, one table by dtype x op.  Integers wrap as C's unsigned arithmetic
 * does (SUM and PROD computed in the unsigned type of the same width); MAX and MIN compare as
 * the element type.  Floating MAX/MIN propagate NaN.  fp16 and bf16 accumulate in fp32 and
 * are rounded once, to nearest even, when stored. */
#include <string.h>

#include "hccl_internal.h"

/* The loops below are the bandwidth of every reduction: let GCC vectorise them fully (clang
 * does at -O2).  No reassociation: each element is still reduced in rank order. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "unroll-loops")
#endif

/* ------------------------------------------------------------------ 16-bit floats */

static inline float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
    if (e == 0) {
        float f = (float)m * 5.9604644775390625e-8f;    /* m * 2^-24 */
        return sign ? -f : f;
    }
    if (e == 31)
        bits = sign | 0x7f800000u | (m << 13);
    else
        bits = sign | ((e + 112u) << 23) | (m << 13);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline uint16_t f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t a = x & 0x7fffffffu;
    if (a >= 0x7f800000u)                                 /* inf, NaN (kept quiet) */
        return (uint16_t)(sign | 0x7c00u | (a > 0x7f800000u ? 0x200u | ((a >> 13) & 0x3ffu) : 0u));
    if (a >= 0x477ff000u)                                 /* >= 65520: rounds to inf */
        return (uint16_t)(sign | 0x7c00u);
    if (a >= 0x38800000u) {                               /* normal */
        uint32_t t = a - 0x38000000u;
        uint32_t h = t >> 13, rem = t & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
            h++;
        return (uint16_t)(sign | h);
    }
    if (a <= 0x33000000u)                                 /* <= 2^-25: rounds to zero */
        return sign;
    uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - e;                            /* value / 2^-24 = m >> shift */
    uint32_t r = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u)))
        r++;
    return (uint16_t)(sign | r);
}

static inline float bf16_to_f32(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline uint16_t f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* ------------------------------------------------------------------ the kernels */

static void copy_load(void *acc, const void *x, size_t n, size_t es) { memcpy(acc, x, n * es); }

#define PLAIN_LOADSTORE(NAME, ES)                                                                   \
    static void NAME##_load(void *acc, const void *x, size_t n) { copy_load(acc, x, n, ES); }       \
    static void NAME##_store(void *out, const void *acc, size_t n) { memcpy(out, acc, n * (ES)); }

/* integer kernels: T element type, U unsigned of the same width */
#define INT_KERNELS(NAME, T, U)                                                                     \
    PLAIN_LOADSTORE(NAME, sizeof(T))                                                                \
    static void NAME##_sum(void *acc, const void *x, size_t n)                                      \
    {                                                                                               \
        U *a = acc;                                                                                 \
        const U *b = x;                                                                             \
        for (size_t i = 0; i < n; ++i)                                                              \
            a[i] = (U)(a[i] + b[i]);                                                                \
    }                                                                                               \
    static void NAME##_prod(void *acc, const void *x, size_t n)                                     \
    {                                                                                               \
        U *a = acc;                                                                                 \
        const U *b = x;                                                                             \
        for (size_t i = 0; i < n; ++i)                                                              \
            a[i] = (U)((uint64_t)a[i] * (uint64_t)b[i]);                                            \
    }                                                                                               \
    static void NAME##_max(void *acc, const void *x, size_t n)                                      \
    {                                                                                               \
        T *a = acc;                                                                                 \
        const T *b = x;                                                                             \
        for (size_t i = 0; i < n; ++i)                                                              \
            a[i] = b[i] > a[i] ? b[i] : a[i];                                                       \
    }                                                                                               \
    static void NAME##_min(void *acc, const void *x, size_t n)                                      \
    {                                                                                               \
        T *a = acc;                                                                                 \
        const T *b = x;                                                                             \
        for (size_t i = 0; i < n; ++i)                                                              \
            a[i] = b[i] < a[i] ? b[i] : a[i];                                                       \
    }

INT_KERNELS(i8, int8_t, uint8_t)
INT_KERNELS(i16, int16_t, uint16_t)
INT_KERNELS(i32, int32_t, uint32_t)
INT_KERNELS(i64, int64_t, uint64_t)
INT_KERNELS(u64, uint64_t, uint64_t)

/* floating kernels over accumulator A with element loads LD (identity for fp32/fp64) */
#define FLOAT_OPS(NAME, A, E, LD)                                                                   \
    static void NAME##_sum(void *acc, const void *x, size_t n)                                      \
    {                                                                                               \
        A *a = acc;                                                                                 \
        const E *b = x;                                                                             \
        for (size_t i = 0; i < n; ++i)                                                              \
            a[i] = a[i] + LD(b[i]);                                                                 \
    }                                                                                               \
    static void NAME##_prod(void *acc, const void *x, size_t n)                                     \
    {                                                                                               \
        A *a = acc;                                                                                 \
        const E *b = x;                                                                             \
        for (size_t i = 0; i < n; ++i)                                                              \
            a[i] = a[i] * LD(b[i]);                                                                 \
    }                                                                                               \
    static void NAME##_max(void *acc, const void *x, size_t n)                                      \
    {                                                                                               \
        A *a = acc;                                                                                 \
        const E *b = x;                                                                             \
        for (size_t i = 0; i < n; ++i) {                                                            \
            A v = LD(b[i]);                                                                         \
            if (v != v || v > a[i])                                                                 \
                a[i] = v;                                                                           \
        }                                                                                           \
    }                                                                                               \
    static void NAME##_min(void *acc, const void *x, size_t n)                                      \
    {                                                                                               \
        A *a = acc;                                                                                 \
        const E *b = x;                                                                             \
        for (size_t i = 0; i < n; ++i) {                                                            \
            A v = LD(b[i]);                                                                         \
            if (v != v || v < a[i])                                                                 \
                a[i] = v;                                                                           \
        }                                                                                           \
    }

#define IDENT(v) (v)
PLAIN_LOADSTORE(f32, 4)
PLAIN_LOADSTORE(f64, 8)
FLOAT_OPS(f32, float, float, IDENT)
FLOAT_OPS(f64, double, double, IDENT)
FLOAT_OPS(f16, float, uint16_t, f16_to_f32)
FLOAT_OPS(bf16, float, uint16_t, bf16_to_f32)

static void f16_load(void *acc, const void *x, size_t n)
{
    float *a = acc;
    const uint16_t *b = x;
    for (size_t i = 0; i < n; ++i)
        a[i] = f16_to_f32(b[i]);
}
static void f16_store(void *out, const void *acc, size_t n)
{
    uint16_t *o = out;
    const float *a = acc;
    for (size_t i = 0; i < n; ++i)
        o[i] = f32_to_f16(a[i]);
}
static void bf16_load(void *acc, const void *x, size_t n)
{
    float *a = acc;
    const uint16_t *b = x;
    for (size_t i = 0; i < n; ++i)
        a[i] = bf16_to_f32(b[i]);
}
static void bf16_store(void *out, const void *acc, size_t n)
{
    uint16_t *o = out;
    const float *a = acc;
    for (size_t i = 0; i < n; ++i)
        o[i] = f32_to_bf16(a[i]);
}

#define ROW(NAME, ES, AS)                                                                           \
    {{ES, AS, NAME##_load, NAME##_sum, NAME##_store}, {ES, AS, NAME##_load, NAME##_prod, NAME##_store}, \
     {ES, AS, NAME##_load, NAME##_max, NAME##_store}, {ES, AS, NAME##_load, NAME##_min, NAME##_store}}

static const hr_kernel K_I8[4] = ROW(i8, 1, 1);
static const hr_kernel K_I16[4] = ROW(i16, 2, 2);
static const hr_kernel K_I32[4] = ROW(i32, 4, 4);
static const hr_kernel K_I64[4] = ROW(i64, 8, 8);
static const hr_kernel K_U64[4] = ROW(u64, 8, 8);
static const hr_kernel K_F16[4] = ROW(f16, 2, 4);
static const hr_kernel K_F32[4] = ROW(f32, 4, 4);
static const hr_kernel K_F64[4] = ROW(f64, 8, 8);
static const hr_kernel K_BF16[4] = ROW(bf16, 2, 4);

const hr_kernel *hr_get(uint32_t dtype, uint32_t op)
{
    if (op > HCCL_REDUCE_MIN)
        return NULL;
    switch (dtype) {
    case HCCL_DATA_TYPE_INT8: return &K_I8[op];
    case HCCL_DATA_TYPE_INT16: return &K_I16[op];
    case HCCL_DATA_TYPE_INT32: return &K_I32[op];
    case HCCL_DATA_TYPE_INT64: return &K_I64[op];
    case HCCL_DATA_TYPE_UINT64: return &K_U64[op];
    case HCCL_DATA_TYPE_FP16: return &K_F16[op];
    case HCCL_DATA_TYPE_FP32: return &K_F32[op];
    case HCCL_DATA_TYPE_FP64: return &K_F64[op];
    case HCCL_DATA_TYPE_BFP16: return &K_BF16[op];
    default: return NULL;
    }
}

size_t hr_dtype_size(uint32_t dtype)
{
    switch (dtype) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_UINT8: case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3: case HCCL_DATA_TYPE_FP8E5M2: case HCCL_DATA_TYPE_FP8E8M0:
        return 1;
    case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_UINT16: case HCCL_DATA_TYPE_FP16: case HCCL_DATA_TYPE_BFP16:
        return 2;
    case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_UINT32: case HCCL_DATA_TYPE_FP32:
        return 4;
    case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT64: case HCCL_DATA_TYPE_FP64:
        return 8;
    case HCCL_DATA_TYPE_INT128:
        return 16;
    default:
        return 0;
    }
}

const char *hr_dtype_name(uint32_t dtype)
{
    static const char *const names[] = {"int8", "int16", "int32", "float16", "float32", "int64", "uint64", "uint8",
                                        "uint16", "uint32", "float64", "bfloat16", "int128", "?", "hif8", "fp8e4m3",
                                        "fp8e5m2", "fp8e8m0"};
    return dtype < sizeof names / sizeof names[0] && dtype != 13 ? names[dtype] : "unknown";
}

const char *hr_op_name(uint32_t op)
{
    static const char *const names[] = {"sum", "prod", "max", "min"};
    return op <= HCCL_REDUCE_MIN ? names[op] : "unknown";
}
