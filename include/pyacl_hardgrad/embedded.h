/*
 * pyacl_hardgrad: calls only the embedded (CPU) runtime offers.  A real CANN install
 * does not have them; through the Python binding they then fail with
 * ACL_ERROR_API_NOT_SUPPORT instead of crashing.
 */
#ifndef PYACL_HARDGRAD_EMBEDDED_H_
#define PYACL_HARDGRAD_EMBEDDED_H_

#include "../acl/acl_base.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

/* Objects alive in the embedded runtime right now, so tests can prove nothing leaked. */
typedef struct hgLiveCounts {
    int64_t deviceAllocations; /* aclrtMalloc blocks not yet freed */
    int64_t deviceBytes;       /* bytes in those blocks */
    int64_t hostAllocations;   /* aclrtMallocHost blocks not yet freed */
    int64_t tensors;
    int64_t scalars;
    int64_t executors;
    int64_t streams;           /* streams created by aclrtCreateStream */
    int64_t events;
    int64_t contexts;          /* contexts created by aclrtCreateContext */
} hgLiveCounts;

ACL_FUNC_VISIBILITY aclError hgGetLiveCounts(hgLiveCounts *counts);

/* What kind of memory an address lies in, as the embedded runtime's allocation registry
 * knows it. */
typedef enum hgMemoryKind {
    HG_MEMORY_UNKNOWN = 0, /* in no live allocation of this runtime */
    HG_MEMORY_DEVICE = 1,  /* in an aclrtMalloc block */
    HG_MEMORY_HOST = 2,    /* in an aclrtMallocHost block */
} hgMemoryKind;

typedef struct hgAllocation {
    int32_t kind;     /* hgMemoryKind */
    int32_t deviceId; /* the device of a device block, -1 otherwise */
    uintptr_t base;   /* the block's first byte (0 when unknown) */
    size_t size;      /* the block's size in bytes (0 when unknown) */
    int32_t busy;     /* synchronous copies or sets running on it right now (a free waits for 0) */
} hgAllocation;

/* The live allocation that holds the byte at ptr (kind HG_MEMORY_UNKNOWN when none). */
ACL_FUNC_VISIBILITY aclError hgQueryAllocation(const void *ptr, hgAllocation *info);

/* Version text of the embedded runtime, e.g. "pyacl_hardgrad-embedded 0.1.0". */
ACL_FUNC_VISIBILITY const char *hgEmbeddedVersion(void);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_EMBEDDED_H_ */
