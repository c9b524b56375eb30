/*
 * pyacl_hardgrad embedded runtime: the contract between its three libraries.
 *
 *   libascendcl.so  runtime layer   (runtime/)    acl*, aclrt*, aclGetRecentErrMsg
 *   libnnopbase.so  tensor base     (nnopbase/)   aclTensor, aclScalar, aclOpExecutor
 *   libopapi.so     operators       (opapi/)      aclnn* entry points and kernels
 *
 * libnnopbase links against libascendcl; libopapi against both.  Everything is built
 * with -fvisibility=hidden: only CANN's API (ACL_FUNC_VISIBILITY in include/) and the
 * hg_* calls below (HG_INTERNAL) leave a library.  Nothing here is public API.
 */
#ifndef PYACL_HARDGRAD_EMBEDDED_HG_INTERNAL_H_
#define PYACL_HARDGRAD_EMBEDDED_HG_INTERNAL_H_

#include <stdatomic.h>
#include <stdint.h>
#include <stddef.h>

/* Export the ACL_FUNC_VISIBILITY functions of the libraries built from these sources. */
#ifndef FUNC_VISIBILITY
#define FUNC_VISIBILITY 1
#endif

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "pyacl_hardgrad/embedded.h"

#define HG_INTERNAL __attribute__((visibility("default")))

#if defined(__GNUC__) || defined(__clang__)
#define HG_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define HG_PRINTF(fmt_index, first_arg)
#endif

/* ------------------------------------------------------------------ libascendcl */

/* Set the calling thread's aclGetRecentErrMsg() text to "<func>: <message>".
 * Every failing public call sets it before returning its code; the same text goes to the
 * log at ERROR (module OP for aclnn* functions, HCCL for Hccl* ones, ASCENDCL for the others) with the caller's
 * file and line.  Those ride in front of the format (a string literal), between two HG_LOC
 * marks: the calls cost no argument more than the text itself. */
#define HG_LOC "\x1f"
#define HG_STR_(x) #x
#define HG_STR(x) HG_STR_(x)
HG_INTERNAL void hg_set_error_at(const char *func, const char *located_fmt, ...) HG_PRINTF(2, 3);
#define hg_set_error(func, ...) hg_set_error_at((func), HG_LOC __FILE__ ":" HG_STR(__LINE__) HG_LOC __VA_ARGS__)
/* As hg_set_error for an outcome a caller polls for (a wait that timed out in a loop): the
 * text is set the same, the log line is DEBUG instead of ERROR. */
HG_INTERNAL void hg_set_outcome_at(const char *func, const char *located_fmt, ...) HG_PRINTF(2, 3);
#define hg_set_outcome(func, ...) hg_set_outcome_at((func), HG_LOC __FILE__ ":" HG_STR(__LINE__) HG_LOC __VA_ARGS__)

/* The log (runtime/log.c): CANN's application log, read from the environment at aclInit
 * (and on first use before it).  ASCEND_GLOBAL_LOG_LEVEL (0 debug, 1 info, 2 warning, 3 error:
 * the default, 4 off) or per module ASCEND_MODULE_LOG_LEVEL; ASCEND_SLOG_PRINT_TO_STDOUT=1
 * prints to stdout, else the lines go to plog files (ASCEND_PROCESS_LOG_PATH, ...).
 * HG_LOG costs one relaxed load and a compare when the level is off: nothing is formatted. */
enum { HG_LOG_ASCENDCL = 0, HG_LOG_OP = 1, HG_LOG_APP = 2, HG_LOG_HCCL = 3, HG_LOG_NMODULES = 4 };
enum { HG_LOG_DEBUG = 0, HG_LOG_INFO = 1, HG_LOG_WARNING = 2, HG_LOG_ERROR = 3, HG_LOG_NULL = 4 };
/* Lowest level written, per module (0 until the settings are read: every line then takes the
 * slow path, which reads them first). */
HG_INTERNAL extern int hg_log_min[HG_LOG_NMODULES];
#define HG_LOG_ENABLED(module, level) ((level) >= __atomic_load_n(&hg_log_min[(module)], __ATOMIC_RELAXED))
/* One line "[LEVEL] MODULE(pid,pname):time [file:line]tid func: message", written whole. */
HG_INTERNAL void hg_log_write(int module, int level, const char *file, int line, const char *func,
                              const char *fmt, ...) HG_PRINTF(6, 7);
#define HG_LOG(module, level, func, ...)                                                        \
    do {                                                                                         \
        if (HG_LOG_ENABLED((module), (level)))                                                   \
            hg_log_write((module), (level), __FILE__, __LINE__, (func), __VA_ARGS__);           \
    } while (0)
/* Re-read the settings (aclInit); returns nothing, bad values fall back as CANN's do. */
HG_INTERNAL void hg_log_configure(void);
/* The settings in use, for aclInit's INFO line: "level ERROR, to <dir>" and the like. */
HG_INTERNAL void hg_log_describe(char *buf, size_t n);

/* Live-object bookkeeping behind hgGetLiveCounts(). */
typedef enum hg_count_kind {
    HG_COUNT_TENSOR = 0,
    HG_COUNT_SCALAR = 1,
    HG_COUNT_EXECUTOR = 2
} hg_count_kind;
HG_INTERNAL void hg_count_add(hg_count_kind kind, int64_t delta);

/* Work item run on a stream's worker thread, in submission order. */
typedef void (*hg_task_fn)(void *arg);

/* Enqueue fn(arg) on stream; NULL means the default stream of the calling thread's
 * current device (ACL_ERROR_RT_CONTEXT_NULL when none is set).  Returns at once.
 * On failure nothing is enqueued, fn is not called, the error text names `caller`,
 * and the caller still owns arg. */
HG_INTERNAL aclError hg_stream_submit(aclrtStream stream, const char *caller, hg_task_fn fn, void *arg);

/* Work estimate of a task whose size is not known: never run on the launching thread. */
#define HG_COST_UNKNOWN UINT64_MAX

/* As hg_stream_submit, for a kernel task that touches about `elements` elements
 * (HG_COST_UNKNOWN if not known).  When the stream is idle (nothing queued, running or
 * waited for) and the task is small (PYACL_HARDGRAD_INLINE, PYACL_HARDGRAD_INLINE_MAX), fn(arg)
 * runs on the calling thread before this returns, in the stream's order: a later task,
 * record, wait, callback or synchronize sees it done, a second launcher queues behind it.
 * fn must not wait for other work of the same stream (host callbacks never come here). */
HG_INTERNAL aclError hg_stream_launch(aclrtStream stream, const char *caller, hg_task_fn fn, void *arg,
                                      uint64_t elements);

/* Device of a stream handle (NULL: the calling thread's current device), or -1 with the
 * error text naming `caller` and *err set. */
HG_INTERNAL int hg_stream_device(aclrtStream stream, const char *caller, aclError *err);
/* The calling thread's current device, -1 when none (sets no error text). */
HG_INTERNAL int hg_current_device(void);
/* Device whose memory holds [p, p + n): -1 for host memory or an unknown address, -2 when
 * the range starts in a device allocation and runs past its end. */
HG_INTERNAL int hg_memory_device(const void *p, size_t n);

/* Checking mode (PYACL_HARDGRAD_CHECK=1 at aclInit; runtime/check.c).  hg_check_on is read
 * with one relaxed load by every hook site: off, a hook costs a predictable branch. */
HG_INTERNAL extern atomic_int hg_check_on;
#define HG_CHECKING() __builtin_expect(atomic_load_explicit(&hg_check_on, memory_order_relaxed) != 0, 0)

/* One range of device memory a task touches: bytes [lo, hi) of the object at `anchor` (the
 * address that says which allocation it belongs to, e.g. a tensor's data pointer); `dense`
 * when every byte of the range is touched (a contiguous view), not only some (a strided one). */
typedef struct hg_access {
    const void *anchor;
    uintptr_t lo, hi;
    unsigned char write;
    unsigned char dense;
    const char *what;   /* "self", "out", "workspace", ... */
} hg_access;
#define HG_MAX_ACCESSES 8

/* The accesses of the next task this thread enqueues (copied; at most HG_MAX_ACCESSES); with
 * n == 0 the pending set is cleared and the calling thread's current call ends.  Call it
 * before hg_stream_launch / hg_stream_submit and with NULL, 0 after. */
HG_INTERNAL void hg_check_pending(const hg_access *acc, int n);
/* A finding of checking mode made outside the runtime (wrong-device, executor-reuse, ...): the
 * kind, the call, the message; with the calling thread's site.  Call only when HG_CHECKING(). */
HG_INTERNAL void hg_check_finding(const char *kind, const char *func, const char *fmt, ...) HG_PRINTF(3, 4);
/* The tensor base's host objects, for checking mode's leak report: each creation and destruction is
 * told (live = true / false) when HG_CHECKING(); what is still live at aclFinalize or exit is a
 * leak, named with where it was created.  `what` (a static string, or NULL) says more: for an
 * executor the operator that made it.  A destruction of an object never told is ignored. */
typedef enum hg_obj_kind {
    HG_OBJ_TENSOR = 0,
    HG_OBJ_SCALAR,
    HG_OBJ_INT_ARRAY,
    HG_OBJ_FLOAT_ARRAY,
    HG_OBJ_BOOL_ARRAY,
    HG_OBJ_TENSOR_LIST,
    HG_OBJ_SCALAR_LIST,
    HG_OBJ_EXECUTOR,
    HG_OBJ_NKINDS
} hg_obj_kind;
HG_INTERNAL void hg_check_object(hg_obj_kind kind, const void *p, int live, const char *func, const char *what);

/* Profiling (runtime/prof.c; libmsprofiler's aclprof* calls drive it).  hg_prof_on is read
 * with one relaxed load by every hook site, as hg_check_on: off, a hook costs a predictable
 * branch and nothing is recorded. */
HG_INTERNAL extern atomic_int hg_prof_on;
#define HG_PROFILING() __builtin_expect(atomic_load_explicit(&hg_prof_on, memory_order_relaxed) != 0, 0)
/* What the next task this thread enqueues is, for the timeline: its name (NULL: the caller's
 * function name) and args, the members of a JSON object ("\"k\":v,..."; NULL: none).  Both are
 * copied.  Call it right before hg_stream_launch / hg_stream_submit and hg_prof_pending(NULL,
 * NULL) after; only when HG_PROFILING(). */
HG_INTERNAL void hg_prof_pending(const char *name, const char *args);

/* ------------------------------------------------------------------ libnnopbase */

#define HG_TENSOR_MAGIC 0x54474841u   /* "AHGT" while alive, cleared on destroy */
#define HG_SCALAR_MAGIC 0x53474841u
#define HG_EXECUTOR_MAGIC 0x45474841u

/* A tensor is (shape, strides, offset) over data, all in elements.  shape, strides and
 * storage_shape point into one allocation with the struct (2 * ndim + storage_ndim int64
 * values laid out after it). */
struct aclTensor {
    uint32_t magic;
    aclDataType dtype;
    aclFormat format;
    uint64_t ndim;
    uint64_t storage_ndim;
    int64_t offset;
    int64_t numel;          /* product of shape (1 for 0-d) */
    void *data;
    const int64_t *shape;
    const int64_t *strides;
    const int64_t *storage_shape;
    int device;             /* device whose memory data points into, -1 for host or unknown */
};

struct aclScalar {
    uint32_t magic;
    aclDataType dtype;
    union {
        double f64;
        float f32;
        uint16_t bits16;   /* ACL_FLOAT16 / ACL_BF16 raw bits */
        int64_t i64;
        uint64_t u64;
        unsigned char bytes[16];
    } value;
};

/* Size in bytes of one element, 0 for dtypes that have none (undefined, string,
 * sub-byte or unknown values). */
HG_INTERNAL size_t hg_dtype_size(aclDataType dtype);
/* CANN's name of a dtype ("DT_FLOAT", ...) for messages; "UNKNOWN" otherwise. */
HG_INTERNAL const char *hg_dtype_name(aclDataType dtype);
/* Profiling: the timeline args members describing an operator's tensors (shapes, dtypes,
 * bytes), in a new string (free it); NULL when out of memory. */
HG_INTERNAL char *hg_prof_describe_tensors(const aclTensor *const *in, int nin, const aclTensor *const *out, int nout);
/* A scalar's value as fp32, converted as CANN does (round to nearest). */
HG_INTERNAL aclnnStatus hg_scalar_to_float(const aclScalar *scalar, float *value);

/* The live allocation holding the byte at p (see hgAllocation in pyacl_hardgrad/embedded.h):
 * returns its kind (0 none, 1 device, 2 host) and fills *base, *size, *device. */
HG_INTERNAL int hg_mem_find(const void *p, uintptr_t *base, size_t *size, int *device);

/* What an operator hands the executor: its name, what phase 2 runs, how to free. */
typedef struct hg_exec_ops {
    const char *op_name;                          /* the aclnn function name, e.g. "aclnnXxx" */
    void (*run)(void *plan, void *workspace);     /* on the stream's worker thread */
    void (*destroy)(void *plan);                  /* frees plan; NULL if nothing to do */
} hg_exec_ops;

/* aclSet{Input,Output,}TensorAddr on an executor: point the plan's tensor `index` (which:
 * 0 counts inputs then outputs, 1 inputs only, 2 outputs only) at addr.  Returns 0, or
 * ACLNN_ERR_PARAM_INVALID for an index the operator does not have.  An operator that can
 * rebind registers its function right after hg_executor_create; without one the setters
 * fail with a message. */
typedef aclnnStatus (*hg_rebind_fn)(void *plan, int which, size_t index, void *addr);
HG_INTERNAL void hg_executor_set_rebind(aclOpExecutor *executor, hg_rebind_fn fn);

/* The ranges one run of the plan touches (checking mode): fills out[0..cap) and returns the count. */
typedef int (*hg_access_fn)(const void *plan, void *workspace, uint64_t workspace_size, hg_access *out, int cap);
HG_INTERNAL void hg_executor_set_access(aclOpExecutor *executor, hg_access_fn fn);

/* Profiling: the executor's tensors described for the timeline (hg_prof_describe_tensors);
 * the executor owns args from now on (NULL: none). */
HG_INTERNAL void hg_executor_set_prof(aclOpExecutor *executor, char *args);

/* Phase 1 ends with this: the executor owns plan from now on (also on failure,
 * where plan is destroyed and NULL is returned with the error text set). */
HG_INTERNAL aclOpExecutor *hg_executor_create(const hg_exec_ops *ops, void *plan, uint64_t workspace_size);
/* The work one run of the executor does, in elements (the largest tensor it writes or
 * reads); without it the run counts as of unknown size and always goes to the stream's
 * worker.  Small runs may execute on the launching thread (hg_stream_launch). */
HG_INTERNAL void hg_executor_set_cost(aclOpExecutor *executor, uint64_t elements);

/* Device consistency for operators: every tensor's memory (NULL entries are skipped)
 * and the stream (NULL: the current device, where phase 1 plans; no check on a thread
 * without one) belong to one device.  Returns 0, or ACLNN_ERR_PARAM_INVALID with a
 * message naming both devices (and the tensors, by their names[i]). */
HG_INTERNAL aclnnStatus hg_check_devices(const char *func, const aclTensor *const *tensors, const char *const *names,
                                         size_t n, aclrtStream stream);

/* Phase 2 common path: checks that executor is a live executor of op_name that may
 * still run, that the workspace is large enough, submits the work on stream and
 * consumes a one-shot executor.  Returns 0 or the aclnn/ACL code with the text set. */
HG_INTERNAL aclnnStatus hg_executor_launch(aclOpExecutor *executor, const char *op_name, void *workspace,
                                          uint64_t workspace_size, aclrtStream stream);

#endif /* PYACL_HARDGRAD_EMBEDDED_HG_INTERNAL_H_ */
