/*
 * Element access shared by every operator's scalar kernels and by the scalar tails of the
 * SIMD kernels: storage types per dtype token, loads that widen to fp32 (exact) and stores
 * that narrow with a named AscendC rounding mode, so every path rounds the same way.
 *
 * Dtype tokens: F32, F16, BF16 (and F64, I8, U8, I16, I32, I64 for kernels of those types).  Stores are named
 * HG_ST_<dtype>_<mode>, mode RNE (CAST_RINT / the CAST_NONE of a narrowing cast) or RNA
 * (CAST_ROUND, ties away).  HG_CAST_<from>_<to> is the Cast step after a kernel (CANN's Cast
 * operator: narrowing to fp16 or bf16 with CAST_RINT, ties to even; widening exact), applied to a
 * value already rounded to <from>.  A kernel's own bf16 narrowing is another matter: most use
 * CAST_ROUND (HG_ST_BF16_RNA / HG_RT_BF16_RNA).
 */
#ifndef PYACL_HARDGRAD_OPAPI_HG_ELEM_H_
#define PYACL_HARDGRAD_OPAPI_HG_ELEM_H_

#include <math.h>
#include <stdint.h>

#include "convert.h"
#include "opapi_common.h"

typedef float hg_T_F32;
typedef uint16_t hg_T_F16;
typedef uint16_t hg_T_BF16;
typedef int32_t hg_T_I32;
typedef int8_t hg_T_I8;
typedef uint8_t hg_T_U8;
typedef int16_t hg_T_I16;
typedef int64_t hg_T_I64;
typedef double hg_T_F64;

/* raw storage word -> fp32 */
#define HG_LD_F32(x) (x)
#define HG_LD_F16(x) hg_f16_to_f32(x)
#define HG_LD_BF16(x) hg_bf16_to_f32(x)

/* fp32 -> storage word with a rounding mode */
#define HG_ST_F32_RNE(r) (r)
#define HG_ST_F32_RNA(r) (r)
#define HG_ST_F16_RNE(r) hg_f32_to_f16(r)
#define HG_ST_F16_RNA(r) hg_f32_to_f16_rna(r)
#define HG_ST_BF16_RNE(r) hg_f32_to_bf16_rne(r)
#define HG_ST_BF16_RNA(r) hg_f32_to_bf16(r)

/* The Cast step: fp32 value r already of dtype <from> (exactly representable) -> <to>. */
#define HG_CAST_F32_F32(r) (r)
#define HG_CAST_F32_F16(r) hg_f32_to_f16(r)
#define HG_CAST_F32_BF16(r) hg_f32_to_bf16_rne(r)
#define HG_CAST_F16_F16(r) hg_f32_to_f16(r)
#define HG_CAST_F16_F32(r) (r)
#define HG_CAST_F16_BF16(r) hg_f32_to_bf16_rne(r)
#define HG_CAST_BF16_BF16(r) hg_f32_to_bf16_rne(r)
#define HG_CAST_BF16_F32(r) (r)
#define HG_CAST_BF16_F16(r) hg_f32_to_f16(r)

/* Round an fp32 result to dtype <P> with mode <M> and keep it as fp32 (for a later Cast). */
#define HG_RT_F32_RNE(r) (r)
#define HG_RT_F32_RNA(r) (r)
#define HG_RT_F16_RNE(r) hg_f16_to_f32(hg_f32_to_f16(r))
#define HG_RT_F16_RNA(r) hg_f16_to_f32(hg_f32_to_f16_rna(r))
#define HG_RT_BF16_RNE(r) hg_bf16_to_f32(hg_f32_to_bf16_rne(r))
#define HG_RT_BF16_RNA(r) hg_bf16_to_f32(hg_f32_to_bf16(r))

/* The aclDataType of a token. */
#define HG_DT_F32 ACL_FLOAT
#define HG_DT_F16 ACL_FLOAT16
#define HG_DT_BF16 ACL_BF16
#define HG_DT_I32 ACL_INT32
#define HG_DT_I8 ACL_INT8
#define HG_DT_U8 ACL_UINT8
#define HG_DT_I16 ACL_INT16
#define HG_DT_I64 ACL_INT64
#define HG_DT_F64 ACL_DOUBLE

/* Branch-free selects on fp32 bit patterns (random data would mispredict branches). */
static inline uint32_t hg_mask32(int cond)
{
    return (uint32_t)0 - (uint32_t)(cond != 0);
}

static inline float hg_select_f32(int cond, float a, float b)
{
    uint32_t m = hg_mask32(cond);
    return hg_bits_f32((hg_f32_bits(a) & m) | (hg_f32_bits(b) & ~m));
}

/* min / max with the SIMD instructions' rule: the second operand unless the first is
 * strictly smaller (larger); so a NaN in either gives the second operand. */
static inline float hg_min_f32(float a, float b)
{
    return a < b ? a : b;
}

static inline float hg_max_f32(float a, float b)
{
    return a > b ? a : b;
}

/* The (gradOutput, self, promoted) dtype triples of a two-input float operator whose
 * inputs may differ: X(G, S, P). */
#define HG_FOR_EACH_FLOAT_PAIR(X) \
    X(F32, F32, F32)              \
    X(F16, F16, F16)              \
    X(BF16, BF16, BF16)           \
    X(F16, F32, F32)              \
    X(F32, F16, F32)              \
    X(BF16, F32, F32)             \
    X(F32, BF16, F32)             \
    X(F16, BF16, F32)             \
    X(BF16, F16, F32)

/* Every float dtype with its fp32 compute dtype, X(T). */
#define HG_FOR_EACH_FLOAT(X) X(F32) X(F16) X(BF16)

/* A kernel-table row: inputs dtypes (up to HG_MAX_IN, the rest ACL_DT_UNDEFINED), out, fn. */
#define HG_ROW1(A, O, fn) {{HG_DT_##A, ACL_DT_UNDEFINED, ACL_DT_UNDEFINED}, HG_DT_##O, fn}
#define HG_ROW2(A, B, O, fn) {{HG_DT_##A, HG_DT_##B, ACL_DT_UNDEFINED}, HG_DT_##O, fn}
#define HG_ROW_END {{ACL_DT_UNDEFINED, ACL_DT_UNDEFINED, ACL_DT_UNDEFINED}, ACL_DT_UNDEFINED, NULL}

/* Loop skeletons of the scalar kernels: element i of the inputs to element i of out.
 * EXPR sees the loaded inputs as fp32 `a` (and `b`) and the parameters `p`. */
#define HG_EW1_KERNEL(NAME, TA, TO, EXPR)                                                            \
    static void NAME(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end) \
    {                                                                                                \
        const hg_T_##TA *x0 = in[0];                                                                 \
        hg_T_##TO *o = out;                                                                          \
        (void)p;                                                                                     \
        for (size_t i = begin; i < end; i++) {                                                       \
            float a = HG_LD_##TA(x0[i]);                                                             \
            o[i] = (EXPR);                                                                           \
        }                                                                                            \
    }

#define HG_EW2_KERNEL(NAME, TA, TB, TO, EXPR)                                                        \
    static void NAME(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end) \
    {                                                                                                \
        const hg_T_##TA *x0 = in[0];                                                                 \
        const hg_T_##TB *x1 = in[1];                                                                 \
        hg_T_##TO *o = out;                                                                          \
        (void)p;                                                                                     \
        for (size_t i = begin; i < end; i++) {                                                       \
            float a = HG_LD_##TA(x0[i]);                                                             \
            float b = HG_LD_##TB(x1[i]);                                                             \
            o[i] = (EXPR);                                                                           \
        }                                                                                            \
    }

#endif /* PYACL_HARDGRAD_OPAPI_HG_ELEM_H_ */
