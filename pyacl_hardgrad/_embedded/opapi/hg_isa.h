/*
 * Kernel paths of libopapi: the portable scalar kernels (always built) and the SIMD ones
 * (each operator's op_kernel/<name>_simd.c, compiled once per path of the machine over the
 * primitives of hg_simd.h).  All of them give bit-identical results; the path is chosen
 * per kernel row at its first use, by timing the candidates (kernel_isa.c).
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
#define HG_ISA_COUNT 4   /* the values of hg_isa, which are those of hgKernelPath */

/* The forced path: PYACL_HARDGRAD_KERNEL_ISA (scalar|avx2|avx512|neon, read once) limited to
 * what the CPU supports (scalar when it lacks it); HG_ISA_SCALAR for auto. */
hg_isa hg_kernel_isa(void);
/* The same, -1 for auto. */
int hg_kernel_isa_forced(void);
/* Bit (1 << hg_isa) per path the CPU supports. */
unsigned hg_kernel_isa_available(void);

/* A kernel row's choice. */
typedef struct hg_kernel_pick {
    const hg_kernel_entry *entry;   /* the chosen path's row */
    hg_kernel_fn fn_nt;             /* its streaming-store twin, NULL where the path has none */
    int isa;                        /* hg_isa */
    double ns_per_elem;             /* its measured cost on cache-resident data, 0 when not timed */
} hg_kernel_pick;

/* The kernel of set for these dtypes on the path chosen for the row (chosen, and the candidates
 * timed, at the row's first use in the process; func names the operator in traces and
 * hgGetKernelChoices).  0 when no table has the row. Thread-safe. */
int hg_kernel_select(const char *func, const hg_kernel_set *set, const aclDataType *in, int nin, aclDataType out,
                     hg_kernel_pick *pick);

/* The candidate chosen from ns[order[0..count)] (ns <= 0: not a candidate): walking the order,
 * a candidate replaces the choice so far only when it takes at most (100 - margin_pct)% of
 * that one's time; -1 when none. */
int hg_kernel_pick_index(const double *ns, const int *order, int count, int margin_pct);

/* The row of table for these dtypes, or NULL. */
const hg_kernel_entry *hg_kernel_find(const hg_kernel_entry *table, const aclDataType *in, int nin,
                                      aclDataType out);

#endif /* PYACL_HARDGRAD_OPAPI_HG_ISA_H_ */
