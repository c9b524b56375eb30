/*
 * Kernel paths of libopapi: the portable scalar kernels (always built) and the SIMD
 * ones built per architecture (files *_x86_avx2.c, *_x86_avx512.c, *_arm_neon.c).
 * All of them give bit-identical results; the path is chosen once per process.
 */
#ifndef PYACL_HARDGRAD_OPAPI_KERNELS_ISA_H_
#define PYACL_HARDGRAD_OPAPI_KERNELS_ISA_H_

#include "opapi_common.h"

typedef enum hg_isa {
    HG_ISA_SCALAR = 0,
    HG_ISA_AVX2 = 1,     /* AVX2 + F16C */
    HG_ISA_AVX512 = 2,   /* AVX-512 F/BW/VL/DQ + F16C */
    HG_ISA_NEON = 3,
} hg_isa;

/* The selected path: PYACL_HARDGRAD_KERNEL_ISA (scalar|avx2|avx512|neon|auto, read once)
 * limited to what the CPU supports; auto picks the widest. */
hg_isa hg_kernel_isa(void);

hg_hardtanh_fn hg_scalar_hardtanh_kernel(aclDataType dtype);
hg_hardsigmoid_fn hg_scalar_hardsigmoid_kernel(aclDataType grad, aclDataType self, aclDataType out);

#if defined(__x86_64__)
hg_hardtanh_fn hg_avx2_hardtanh_kernel(aclDataType dtype);
hg_hardsigmoid_fn hg_avx2_hardsigmoid_kernel(aclDataType grad, aclDataType self, aclDataType out);
hg_hardtanh_fn hg_avx2_hardtanh_kernel_nt(aclDataType dtype);
hg_hardsigmoid_fn hg_avx2_hardsigmoid_kernel_nt(aclDataType grad, aclDataType self, aclDataType out);
hg_hardtanh_fn hg_avx512_hardtanh_kernel(aclDataType dtype);
hg_hardsigmoid_fn hg_avx512_hardsigmoid_kernel(aclDataType grad, aclDataType self, aclDataType out);
#endif
#if defined(__aarch64__)
hg_hardtanh_fn hg_neon_hardtanh_kernel(aclDataType dtype);
hg_hardsigmoid_fn hg_neon_hardsigmoid_kernel(aclDataType grad, aclDataType self, aclDataType out);
#endif

#endif /* PYACL_HARDGRAD_OPAPI_KERNELS_ISA_H_ */
