/*
 * The SIMD primitives every operator's SIMD kernels are written over, and the loop
 * skeletons that combine them with the scalar tail.  An operator's op_kernel/<name>_simd.c
 * includes this header; the build compiles that file once per SIMD path of the machine
 * (x86_64: HG_SIMD_AVX2 with -mavx2 -mf16c, HG_SIMD_AVX512 with -mavx512*; aarch64:
 * HG_SIMD_NEON), and HG_SIMD_SYM(pfx) names its kernel table pfx_avx2 / pfx_avx512 /
 * pfx_neon accordingly.  On x86_64 the build compiles it once more per path with
 * HG_SIMD_STREAM (tables pfx_avx2_nt / pfx_avx512_nt): there every vector store bypasses the
 * caches, for outputs far larger than them.  Those stores need addresses aligned to their
 * width; the caller (ew_plan.c) guarantees it by starting the streaming kernel where out is
 * 64-byte aligned (the plain kernel writes the head) and fences after it.  A kernel therefore
 * steps its vector stores from `begin` by whole vectors and stores only through the
 * primitives below (hgv_st_*, hgv_keep*, hgv_st_i256), never with intrinsics of its own.
 *
 * Every primitive rounds exactly like convert.h / hg_elem.h, so a vector body and the
 * scalar tail of the same range agree bit for bit, and so do all paths.  The build's
 * -ffp-contract=off keeps a multiply and an add two roundings in vector code too.
 *
 * hgv = HG_W fp32 lanes, hgm = a lane mask.
 *   loads (widen to fp32, exact):  hgv_ld_f32 hgv_ld_bits hgv_ld_f16 hgv_ld_bf16
 *   stores (narrow with a mode):   hgv_st_f32 hgv_st_f16_rne hgv_st_f16_rna hgv_st_bf16_rne hgv_st_bf16_rna
 *   round and widen back:          hgv_rt_f16_rne hgv_rt_bf16_rne hgv_rt_bf16_rna
 *   arithmetic:                    hgv_set1 hgv_add hgv_mul hgv_min hgv_max hgv_abs
 *                                  (min/max: hg_min_f32/hg_max_f32's rule)
 *   compares (ordered, NaN false): hgv_gt hgv_ge hgv_lt hgv_le, hgm_and hgm_or hgm_not
 *   select:                        hgv_sel(m, a, b) = m ? a : b (bitwise)
 *   raw-word selects:              hgv_keep32(o, g, m) hgv_keep16(o, g, m): o = m ? g : 0
 *   raw store (AVX2 only):         hgv_st_i256(p, __m256i)
 */
#ifndef PYACL_HARDGRAD_OPAPI_HG_SIMD_H_
#define PYACL_HARDGRAD_OPAPI_HG_SIMD_H_

#include "hg_elem.h"
#include "hg_isa.h"

#if defined(HG_SIMD_AVX2) && defined(HG_SIMD_STREAM)
#include "simd_x86_avx2.h"
#define HG_SIMD_SFX _avx2_nt
#elif defined(HG_SIMD_AVX2)
#include "simd_x86_avx2.h"
#define HG_SIMD_SFX _avx2
#elif defined(HG_SIMD_AVX512) && defined(HG_SIMD_STREAM)
#include "simd_x86_avx512.h"
#define HG_SIMD_SFX _avx512_nt
#elif defined(HG_SIMD_AVX512)
#include "simd_x86_avx512.h"
#define HG_SIMD_SFX _avx512
#elif defined(HG_SIMD_NEON)
#include "simd_arm_neon.h"
#define HG_SIMD_SFX _neon
#else
#error "a *_simd.c file is compiled with one of HG_SIMD_AVX2, HG_SIMD_AVX512, HG_SIMD_NEON"
#endif

#define HGS_CAT_(a, b) a##b
#define HGS_CAT(a, b) HGS_CAT_(a, b)
/* The kernel table of this path: const hg_kernel_entry HG_SIMD_SYM(pfx)[] = {...}; */
#define HG_SIMD_SYM(pfx) HGS_CAT(pfx, HG_SIMD_SFX)

/* Token forms of the loads and stores (dtype tokens as in hg_elem.h). */
#define HGV_LD_F32(p) hgv_ld_f32(p)
#define HGV_LD_F16(p) hgv_ld_f16(p)
#define HGV_LD_BF16(p) hgv_ld_bf16(p)
#define HGV_ST_F32_RNE(p, v) hgv_st_f32(p, v)
#define HGV_ST_F32_RNA(p, v) hgv_st_f32(p, v)
#define HGV_ST_F16_RNE(p, v) hgv_st_f16_rne(p, v)
#define HGV_ST_F16_RNA(p, v) hgv_st_f16_rna(p, v)
#define HGV_ST_BF16_RNE(p, v) hgv_st_bf16_rne(p, v)
#define HGV_ST_BF16_RNA(p, v) hgv_st_bf16_rna(p, v)
/* The Cast step of hg_elem.h in vector form (fp16 and bf16 ties to even). */
#define HGV_CAST_F32_F32(p, v) hgv_st_f32(p, v)
#define HGV_CAST_F32_F16(p, v) hgv_st_f16_rne(p, v)
#define HGV_CAST_F32_BF16(p, v) hgv_st_bf16_rne(p, v)
#define HGV_CAST_F16_F16(p, v) hgv_st_f16_rne(p, v)
#define HGV_CAST_F16_F32(p, v) hgv_st_f32(p, v)
#define HGV_CAST_F16_BF16(p, v) hgv_st_bf16_rne(p, v)
#define HGV_CAST_BF16_BF16(p, v) hgv_st_bf16_rne(p, v)
#define HGV_CAST_BF16_F32(p, v) hgv_st_f32(p, v)
#define HGV_CAST_BF16_F16(p, v) hgv_st_f16_rne(p, v)

/* One-input kernel: VEXPR over hgv `a` (and the parameters p), SEXPR the scalar tail's
 * expression over float `a` (both producing the stored word through their own store). */
#define HGS_EW1_KERNEL(NAME, TA, TO, VSTORE, VEXPR, SEXPR)                                           \
    static void NAME(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end) \
    {                                                                                                \
        const hg_T_##TA *x0 = in[0];                                                                 \
        hg_T_##TO *o = out;                                                                          \
        size_t i = begin;                                                                            \
        for (; i + HG_W <= end; i += HG_W) {                                                         \
            hgv a = HGV_LD_##TA(x0 + i);                                                             \
            VSTORE(o + i, (VEXPR));                                                                  \
        }                                                                                            \
        for (; i < end; i++) {                                                                       \
            float a = HG_LD_##TA(x0[i]);                                                             \
            o[i] = (SEXPR);                                                                          \
        }                                                                                            \
        (void)p;                                                                                     \
    }

#define HGS_EW2_KERNEL(NAME, TA, TB, TO, VSTORE, VEXPR, SEXPR)                                       \
    static void NAME(const void *const *in, void *out, const hg_params *p, size_t begin, size_t end) \
    {                                                                                                \
        const hg_T_##TA *x0 = in[0];                                                                 \
        const hg_T_##TB *x1 = in[1];                                                                 \
        hg_T_##TO *o = out;                                                                          \
        size_t i = begin;                                                                            \
        for (; i + HG_W <= end; i += HG_W) {                                                         \
            hgv a = HGV_LD_##TA(x0 + i);                                                             \
            hgv b = HGV_LD_##TB(x1 + i);                                                             \
            VSTORE(o + i, (VEXPR));                                                                  \
        }                                                                                            \
        for (; i < end; i++) {                                                                       \
            float a = HG_LD_##TA(x0[i]);                                                             \
            float b = HG_LD_##TB(x1[i]);                                                             \
            o[i] = (SEXPR);                                                                          \
        }                                                                                            \
        (void)p;                                                                                     \
    }

#endif /* PYACL_HARDGRAD_OPAPI_HG_SIMD_H_ */
