/*
 * Kernel paths of libopapi: the portable scalar kernels (always built) and the SIMD ones
 * (each operator's op_kernel/<name>_simd.c, compiled once per path of the machine over the
 * primitives of hg_simd.h).  All of them give bit-identical results; the path is chosen
 * once per process (kernel_isa.c).
 */
#ifndef PYACL_HARDGRAD_OPAPI_HG_ISA_H_
#define PYACL_HARDGRAD_OPAPI_HG_ISA_H_

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

/* The row of table for these dtypes, or NULL. */
const hg_kernel_entry *hg_kernel_find(const hg_kernel_entry *table, const aclDataType *in, int nin,
                                      aclDataType out);

#endif /* PYACL_HARDGRAD_OPAPI_HG_ISA_H_ */
