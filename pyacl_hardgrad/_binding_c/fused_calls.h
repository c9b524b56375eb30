/* The binding's handle layer and the generic two-phase call: what every Python handle of
 * pyacl_hardgrad owns, what it depends on and how it is released, in one place.  This file is
 * both cffi's declarations and part of the module's C source; fused_calls.c (appended after the
 * function table) implements it, so every ACL call below goes through the same bound pointers
 * (embedded runtime or CANN) as a direct lib.acl... call.  ffi_build.py appends, per operator of
 * include/aclnnop, one fused call and one plan constructor generated from its prototype.
 *
 * An hgb_obj is one resource: its C object, its kind (which names its destroy function), the
 * objects it holds a reference to (dependencies) and an atomic count of its holders.  A count that
 * reached 0 destroyed the resource for good: retaining it again fails.  The Python handle that
 * created an object holds one reference and an "open" flag; closing the handle clears the flag and
 * drops the reference (once).  The struct itself lives while the resource does or a Python handle
 * points at it, so a closed handle's pointer is never dangling.
 *
 * A stream object keeps a list of the objects its queued work uses; hgb_stream_sync waits for the
 * stream and then releases what was queued before the wait.  A storage object (device memory or a
 * foreign owner) remembers the stream that last used it, so reading it back waits for that stream. */
#define HGB_KIND_PY 0       /* released by the Python layer (hgb_py_release) */
#define HGB_KIND_TENSOR 1   /* aclDestroyTensor */
#define HGB_KIND_SCALAR 2   /* aclDestroyScalar */
#define HGB_KIND_MEMORY 3   /* aclrtFree */
#define HGB_KIND_EXECUTOR 4 /* a plan: aclDestroyAclOpExecutor unless a one-shot run consumed it */
#define HGB_KIND_STREAM 5   /* aclrtSynchronizeStream, aclrtDestroyStream, then its held work */
#define HGB_KIND_EVENT 6    /* aclrtDestroyEvent */
#define HGB_KIND_FOREIGN 7  /* device memory the package does not own: nothing to free */

#define HGB_WAIT 1          /* flags: synchronise the stream after the launch */
#define HGB_CLOSED -1       /* status: argument `index` of the call was closed (nothing was called) */
#define HGB_CONSUMED -2     /* status: a one-shot plan has run already */
#define HGB_GONE -3         /* status: the device of an allocation is being released */
#define HGB_MAX_ARGS 32     /* handle arguments of one operator call */
#define HGB_PENDING_LIMIT 4096 /* objects a stream holds before a launch synchronises it */

typedef struct hgb_obj hgb_obj;
typedef int (*hgb_phase2_fn)(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                             aclrtStream stream);

/* The outcome of a call besides its status (one per thread, reused). */
typedef struct hgb_call {
    const char *function;    /* the function whose non-zero status was returned; NULL for HGB_CLOSED */
    int32_t index;           /* HGB_CLOSED: which argument */
    int32_t wait_failed;     /* on a failure: 1 when the launch went through and only the wait failed */
    uint64_t workspace_size; /* phase 1's answer */
    aclOpExecutor *executor; /* phase 1's executor until the call hands it on */
    hgb_obj *made;           /* hgb_plan_*, hgb_tensor_empty: the new object (NULL on failure) */
    void *data;              /* hgb_tensor_empty: the new tensor's device address */
    aclTensor *tensor;       /* hgb_tensor_empty: the new aclTensor */
    uintptr_t address;       /* hgb_tensor_empty: `made` as an integer (what _fastcall's calls take) */
} hgb_call;

/* One argument of an operator's array-argument call (hgb_callv_<name>, what _fastcall.OpCall
 * calls): a handle argument's object, or a value parameter widened to 64 bits (the caller has
 * checked it fits the parameter's type). */
typedef union hgb_arg {
    hgb_obj *o;
    int64_t i;               /* integers (an unsigned 64-bit one as its bits) and bools */
    uint64_t u;              /* what OpCall writes for 'Q' (the same bits as i) */
    double d;
} hgb_arg;

/* Objects.  `deps` are references the caller already holds; they move into the new object.
 * `wrapped`: 1: a Python handle points at it (open flag set; hgb_obj_close/hgb_obj_forget follow);
 * 2: a Python object points at it without an open flag (hgb_obj_forget lets go of the struct).
 * NULL when out of memory (the deps are released then). */
hgb_obj *hgb_obj_new(int kind, void *handle, intptr_t py, hgb_obj *const *deps, int ndeps, int wrapped);
/* A stream object; `device` is the device's object, held (a dependency) when `hold_device`. */
hgb_obj *hgb_stream_new(aclrtStream stream, hgb_obj *device, int hold_device, aclrtContext context);
int hgb_obj_retain(hgb_obj *o);          /* 1: retained; 0: already released */
int hgb_obj_hold(hgb_obj *o);            /* retain an open object: 1, else 0 */
int64_t hgb_obj_release(hgb_obj *o);     /* the count after; -1: was already 0 */
int64_t hgb_obj_refs(hgb_obj *o);
int hgb_obj_open(hgb_obj *o);
void *hgb_obj_handle(hgb_obj *o);
hgb_obj *hgb_obj_storage(hgb_obj *tensor); /* the memory (or owner) a tensor views; retained, NULL if gone */
int hgb_obj_add_dep(hgb_obj *o, hgb_obj *dep); /* dep is already retained; 0 when out of memory */
int hgb_obj_adopt(hgb_obj *o);           /* a Python handle takes this reference: 1, or 0 when one has */
void hgb_obj_close(hgb_obj *o);          /* the Python handle closes: drop its reference once */
void hgb_obj_forget(hgb_obj *o);         /* the Python handle is gone (close + let go of the struct) */

/* A stream another owner destroys (Stream.from_handle without own): its release only waits. */
void hgb_stream_borrowed(hgb_obj *stream);
/* Streams: hold objects until the next sync; the count of held objects (pinned plans aside, see
 * hgb_plan_run); wait and release. */
int hgb_stream_hold(hgb_obj *stream, hgb_obj *const *objs, int n); /* retains them; 0 when one was released */
/* As hgb_stream_hold, and the tensors among objs record the stream as the last one writing their
 * storage (what a later read waits for): work enqueued outside the fused calls (collectives). */
int hgb_stream_use(hgb_obj *stream, hgb_obj *const *objs, int n);
int64_t hgb_stream_held(hgb_obj *stream);
int hgb_stream_sync(hgb_obj *stream);    /* HGB_CLOSED for a closed stream */
/* As hgb_stream_sync, and let go of every plan pinned on the stream, closed or not (at interpreter
 * exit: what the pins hold is then released while the Python layer can still run releases). */
int hgb_stream_unpin(hgb_obj *stream);
/* Wait for the stream that last used this tensor's storage (no-op when none); a status. */
int hgb_tensor_wait(hgb_obj *tensor);
int hgb_obj_kind(hgb_obj *o);

/* The generic two-phase call over handle arguments (what every generated fused call does):
 * hgb_begin holds the stream (NULL for none) and every open argument (NULLs skipped) for the call,
 * or nothing (HGB_CLOSED, call->index: the argument, n for the stream);
 * after phase 1 returned `status`, hgb_finish runs phase 2 with a workspace when one is needed
 * (allocated here, on the stream's device), hands the references to the stream (held until its
 * next sync) and, with HGB_WAIT, waits.  Every failure releases what was held (a failed launch
 * also destroys the executor), except a failed wait: the work may still run, so the stream keeps
 * it.  call->function names the failing function. */
int hgb_begin(hgb_call *call, hgb_obj *stream, hgb_obj *const *args, int n);
int hgb_finish(hgb_call *call, int status, hgb_obj *const *args, int n, hgb_obj *stream, int flags,
               hgb_phase2_fn phase2, const char *phase1_name, const char *phase2_name);
/* The same after phase 1 of a plan: call->made = the plan object (owning the references). */
int hgb_plan_finish(hgb_call *call, int status, hgb_obj *const *args, int n, int repeatable,
                    hgb_phase2_fn phase2, const char *phase1_name, const char *phase2_name);
/* Phase 2 of a plan on `stream` with `workspace` (NULL: the plan's own, allocated on first need):
 * the stream holds the plan (and the workspace) until its next sync.  A repeatable plan run with
 * its own workspace is pinned on the stream instead: the stream holds it (one reference) until
 * the plan is closed and the stream has synchronised since, or the stream is destroyed, and its
 * later runs there hold nothing (the stream's destroy and the pin's release wait for a run in its
 * launch).  HGB_CONSUMED for a one-shot plan that ran; HGB_CLOSED with index 0 (plan), 1 (stream),
 * 2 (workspace); HGB_WAIT waits as hgb_stream_sync. */
int hgb_plan_run(hgb_obj *plan, hgb_obj *stream, int flags);   /* the plan's own workspace */
int hgb_plan_run_in(hgb_obj *plan, hgb_obj *stream, hgb_obj *workspace, int flags);
/* The calling thread's record of its last failed call, for the entry points that take no
 * hgb_call (hgb_plan_run, hgb_plan_run_in): function and index as in hgb_call.  A thread-local
 * record spares the per-call argument and the Python layer's per-thread lookup; it is read right
 * after the failure, before the thread makes another call. */
hgb_call *hgb_thread_call(void);
int64_t hgb_stream_pinned(hgb_obj *stream);  /* how many plans are pinned on the stream */
uint64_t hgb_plan_workspace_size(hgb_obj *plan);

/* A row-major tensor of new device memory on `device` (its context made current when given):
 * call->made (open, wrapped), call->data; a status (call->function names the failing call). */
int hgb_tensor_empty(hgb_call *call, hgb_obj *device, aclrtContext context, int ndim, const int64_t *dims,
                     int dtype, int itemsize);
/* Host arrays of a call (numpy in, numpy out).  One hgb_host_tensor per tensor parameter of the
 * operator, in prototype order, says what its device tensor looks like (row-major); the Python
 * layer builds the table once per layout of a call and shares it read-only.  The buffers are the
 * call's arguments (contiguous host memory of exactly the tensor's bytes). */
#define HGB_HOST_ABSENT 0   /* no tensor (an optional input left out): the operator gets NULL */
#define HGB_HOST_IN 1       /* an input: its buffer is copied to the device before the call */
#define HGB_HOST_OUT 2      /* an output: copied into its buffer after the call */
#define HGB_HOST_INOUT 3    /* both (in-place operators) */
typedef struct hgb_host_tensor {
    const int64_t *dims;
    int32_t ndim;
    int32_t dtype;          /* aclDataType */
    int32_t itemsize;
    int32_t role;           /* HGB_HOST_* */
} hgb_host_tensor;
/* Staging of a host call: hold the stream for it (HGB_CLOSED with call->index = `stream_index`
 * when it is closed), then for each i < n with a role make t[i], an open tensor over new device
 * memory of the stream's device holding a copy of data[i] for inputs (NULL when absent).  A
 * status (call->function names the failing call); nothing is left held on failure. */
int hgb_host_stage(hgb_call *call, hgb_obj *stream, const hgb_host_tensor *lay, void *const *data,
                   hgb_obj **t, int n, int stream_index);
/* After the operator's call on the staged tensors returned `status` (with HGB_WAIT): on success
 * copy the outputs into their buffers; then let go of the staged tensors and of the stream
 * (the stream keeps what a failed wait left queued).  The call's status, or the copy's. */
int hgb_host_finish(hgb_call *call, int status, hgb_obj *stream, const hgb_host_tensor *lay,
                    void *const *data, hgb_obj **t, int n);
/* Device memory of `size` bytes on `device` from the device allocator (device_cache.h):
 * call->made (a MEMORY object, open, wrapped), call->data; a status. */
int hgb_memory_new(hgb_call *call, hgb_obj *device, aclrtContext context, uint64_t size);
/* The bytes the allocator reserved for a MEMORY object (0: not from the allocator). */
uint64_t hgb_memory_block(hgb_obj *mem);
/* A device object (the Python layer's) names its device id: allocations on it are keyed by it. */
void hgb_obj_set_device(hgb_obj *o, int32_t device_id);

/* CANN's type promotion of two aclDataTypes (the default out dtype of an operator); -1: none. */
int hgb_promote_types(int a, int b);

/* Implemented by the Python layer (cffi extern "Python"). */
extern "Python" void hgb_py_release(intptr_t key);
extern "Python" void hgb_py_cleanup_failed(const char *function, int status);
