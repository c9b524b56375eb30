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

/* The operator library's kernel paths.  Every path gives the same bytes; which one runs for an
 * (operator, dtypes) kernel row is chosen at the row's first use by timing each candidate on a
 * small cache-resident buffer (or forced by PYACL_HARDGRAD_KERNEL_ISA). */
typedef enum hgKernelPath {
    HG_KERNEL_PATH_SCALAR = 0, /* portable C */
    HG_KERNEL_PATH_AVX2 = 1,   /* AVX2 + F16C */
    HG_KERNEL_PATH_AVX512 = 2, /* AVX-512 F/BW/VL/DQ + F16C */
    HG_KERNEL_PATH_NEON = 3,
} hgKernelPath;
#define HG_KERNEL_PATH_COUNT 4

typedef enum hgKernelReason {
    HG_KERNEL_MEASURED = 0,   /* the fastest candidate measured (see hgKernelChoice) */
    HG_KERNEL_FORCED = 1,     /* forced by PYACL_HARDGRAD_KERNEL_ISA */
    HG_KERNEL_ONLY = 2,       /* the only candidate */
    HG_KERNEL_FAKED = 3,      /* like MEASURED, with times from PYACL_HARDGRAD_KERNEL_FAKE_NS */
    HG_KERNEL_UNMEASURED = 4, /* no room to record the row: the first candidate, not timed */
} hgKernelReason;

/* One kernel row chosen so far in this process. */
typedef struct hgKernelChoice {
    char op[64];                                /* the aclnn operator, e.g. "aclnnHardtanhBackward" */
    int32_t inCount;                            /* its tensor inputs */
    int32_t inDtypes[3];                        /* aclDataType of each input (ACL_DT_UNDEFINED past inCount) */
    int32_t outDtype;
    int32_t path;                               /* hgKernelPath that runs */
    int32_t reason;                             /* hgKernelReason */
    double nsPerElement[HG_KERNEL_PATH_COUNT];  /* per path: ns per element measured (or faked); -1 when
                                                 * not a candidate (CPU lacks it, no kernel for the dtypes),
                                                 * 0 when a candidate that was not timed (forced) */
    int64_t parallelMinElements;                /* the pool splits calls of this row from this size up,
                                                 * with the memory cost learnt so far (INT64_MAX: never,
                                                 * one thread) */
} hgKernelChoice;

/* The kernel rows chosen so far, in the order of their first use: the first min(capacity, *count)
 * go to choices, *count gets how many there are.  choices may be NULL when capacity is 0. */
ACL_FUNC_VISIBILITY aclError hgGetKernelChoices(hgKernelChoice *choices, int32_t capacity, int32_t *count);

/* The settings behind the choices. */
typedef struct hgKernelSettings {
    int32_t forcedPath;        /* hgKernelPath forced by PYACL_HARDGRAD_KERNEL_ISA, -1 for auto */
    int32_t availablePaths;    /* bit (1 << hgKernelPath) per path this CPU and build can run */
    int32_t threads;           /* threads per split call, caller included (PYACL_HARDGRAD_THREADS) */
    int32_t marginPercent;     /* a later candidate must be this much faster to be chosen */
    double splitMinNs;         /* a call is split when its estimated one-thread time reaches this */
    double handoffNs;          /* the measured hand-off: how long a worker takes to join a job */
    uint64_t streamMinBytes;   /* calls whose tensors together exceed this write out with streaming
                                  stores (half the last-level cache, PYACL_HARDGRAD_STREAM_MIN_BYTES) */
    uint64_t streamedCalls;    /* element-wise calls so far in this process that did so */
    uint64_t l1CacheBytes;     /* CPU 0's level-1 data cache, where each row's cost per element is
                                  measured: a call moving more bytes adds the memory cost below to
                                  its estimated one-thread time */
    double memoryNsPerByte[16]; /* that cost per size class c: calls of more than l1 bytes with
                                  floor(bytes / l1) in [2^c, 2^(c + 1)) (the last class unbounded),
                                  learnt from such calls run on one thread: the least they took
                                  beyond the cache-resident estimate, per byte; 0: none yet */
} hgKernelSettings;

ACL_FUNC_VISIBILITY aclError hgGetKernelSettings(hgKernelSettings *settings);

/* Whether the calling thread waits for each of its kernel launches right after making it (an
 * aclnn call followed by aclrtSynchronizeStream).  While enabled, a kernel launched from this
 * thread onto an idle stream runs on this thread, at any size (its large calls split over the
 * operator library's pool with this thread taking part), instead of on the stream's worker
 * while this thread only waits; stream order, events and synchronisation are as for any launch.
 * A launch onto a busy stream queues as usual.  PYACL_HARDGRAD_INLINE=0 turns this off too. */
ACL_FUNC_VISIBILITY aclError hgSetSynchronousLaunch(int32_t enable);

/* The calling thread's current context, as aclrtGetCurrentContext gives it, or NULL when the
 * runtime is not initialised or the thread has no device set: a question, not a failure (no
 * error text, no log line), for callers that only want to know. */
ACL_FUNC_VISIBILITY aclError hgGetCurrentContext(aclrtContext *context);
/* Checking mode (PYACL_HARDGRAD_CHECK=1 at aclInit, docs/checking.md): whether it is on (1) or off (0). */
ACL_FUNC_VISIBILITY int32_t hgCheckEnabled(void);
/* Checking mode's findings in this process so far (what its ERROR SUMMARY counts); 0 when it is off. */
ACL_FUNC_VISIBILITY uint64_t hgCheckErrorCount(void);
/* The calling thread's source site ("file:line") that checking mode's findings name for the calls it
 * makes from now on; NULL or "" clears it.  Cheap, and without effect when checking is off. */
ACL_FUNC_VISIBILITY aclError hgCheckSetSite(const char *where);

/* Version text of the embedded runtime, e.g. "pyacl_hardgrad-embedded 0.1.0". */
ACL_FUNC_VISIBILITY const char *hgEmbeddedVersion(void);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_EMBEDDED_H_ */
