/* The handle layer and the generic two-phase call (declarations and contract: fused_calls.h).
 * Appended to the cffi module's source after the function table: the ACL names here are the
 * bound pointers.  Nothing here knows any operator: ffi_build.py generates the per-operator
 * calls from the prototypes, and they all end in hgb_finish / hgb_plan_finish. */
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct hgb_obj {
    int64_t refs;             /* holders of the resource (atomic) */
    int32_t shell;            /* holders of this struct: 1 while refs > 0, 1 per Python handle, 1 per
                                 storage that names it as its last stream (atomic) */
    int32_t open;             /* 1 while the Python handle is open (atomic) */
    int32_t kind;
    int32_t ndeps;
    void *handle;             /* the C object */
    intptr_t py;              /* HGB_KIND_PY: the Python layer's key */
    hgb_obj **deps;
    hgb_obj *storage;         /* tensors: the memory (or foreign owner) they view */
    hgb_obj *last;            /* storages: the stream that last used them (a shell reference, atomic) */
    /* streams */
    int32_t lock;             /* a spin lock over `held` and `pins` (held only for a few stores) */
    hgb_obj **held;
    int32_t nheld, capheld;   /* nheld: written under the lock, read without it (atomic) */
    hgb_obj **pins;           /* repeatable plans pinned here: one reference each (see hgb_pin) */
    int32_t npins, cappins;   /* npins: as nheld */
    int32_t busy;             /* runs of pinned plans in their launch right now (atomic) */
    uint64_t pin_epoch;       /* hgb_closed_plans when the pins were last looked through */
    hgb_obj *device;
    aclrtContext context;
    /* plans */
    hgb_phase2_fn phase2;
    const char *phase2_name;
    uint64_t ws_size;
    hgb_obj *ws;              /* the plan's own workspace (atomic) */
    hgb_obj *pin;             /* the stream whose runs take the pinned path (a shell reference, atomic) */
    int32_t repeatable;
    /* foreign handles */
    int32_t borrowed;         /* streams: another owner destroys the C stream (sync only) */
    int32_t gone;             /* streams: the destroy finished waiting for the queue (atomic) */
    /* devices (the Python layer's device objects): the id + 1, 0 when not known */
    int32_t device_id1;
    /* memory from the device allocator (device_cache.c): given back to it on destroy */
    int32_t cached;           /* 1: hgb_cache_free, 0: aclrtFree */
    int32_t cache_device;
    int32_t cache_bin;
    uint64_t cache_block;     /* bytes reserved for it */
    uint64_t cache_requested; /* bytes asked for */
};

static void hgb_destroy(hgb_obj *o);
static int hgb_sync(hgb_obj *stream);

/* Bumped by every close of a plan: a stream with pins looks through them at its next sync only
 * when it changed since its last look. */
static uint64_t hgb_closed_plans;

static void hgb_shell_unref(hgb_obj *o)
{
    if (__atomic_sub_fetch(&o->shell, 1, __ATOMIC_ACQ_REL) == 0) {
        if (o->kind == HGB_KIND_STREAM) {
            free(o->held);
            free(o->pins);
        }
        free(o->deps);
        free(o);
    }
}

static void hgb_shell_ref(hgb_obj *o)
{
    __atomic_add_fetch(&o->shell, 1, __ATOMIC_RELAXED);
}

int hgb_obj_retain(hgb_obj *o)
{
    int64_t n = __atomic_load_n(&o->refs, __ATOMIC_RELAXED);
    while (n > 0) {
        if (__atomic_compare_exchange_n(&o->refs, &n, n + 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            return 1;
    }
    return 0;
}

int hgb_obj_hold(hgb_obj *o)
{
    return __atomic_load_n(&o->open, __ATOMIC_ACQUIRE) && hgb_obj_retain(o);
}

int64_t hgb_obj_release(hgb_obj *o)
{
    int64_t n = __atomic_load_n(&o->refs, __ATOMIC_RELAXED);
    while (n > 0) {
        if (__atomic_compare_exchange_n(&o->refs, &n, n - 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            if (n == 1) {
                hgb_destroy(o);
                hgb_shell_unref(o);
            }
            return n - 1;
        }
    }
    return -1;
}

static void hgb_release_all(hgb_obj *const *objs, int n)
{
    for (int i = 0; i < n; i++) {
        if (objs[i] != NULL)
            (void)hgb_obj_release(objs[i]);
    }
}

int64_t hgb_obj_refs(hgb_obj *o) { return __atomic_load_n(&o->refs, __ATOMIC_ACQUIRE); }
int hgb_obj_open(hgb_obj *o) { return __atomic_load_n(&o->open, __ATOMIC_ACQUIRE); }
void *hgb_obj_handle(hgb_obj *o) { return o->handle; }
int hgb_obj_kind(hgb_obj *o) { return o->kind; }

hgb_obj *hgb_obj_storage(hgb_obj *t)
{
    return t->storage != NULL && hgb_obj_retain(t->storage) ? t->storage : NULL;
}

static hgb_obj *hgb_alloc(int kind, void *handle, int wrapped)
{
    hgb_obj *o = calloc(1, sizeof *o);
    if (o == NULL)
        return NULL;
    o->refs = 1;
    o->shell = wrapped ? 2 : 1;
    o->open = wrapped == 1;
    o->kind = kind;
    o->handle = handle;
    return o;
}

hgb_obj *hgb_obj_new(int kind, void *handle, intptr_t py, hgb_obj *const *deps, int ndeps, int wrapped)
{
    hgb_obj *o = hgb_alloc(kind, handle, wrapped);
    if (o != NULL && ndeps > 0) {
        o->deps = malloc((size_t)ndeps * sizeof *o->deps);
        if (o->deps == NULL) {
            free(o);
            o = NULL;
        }
    }
    if (o == NULL) {
        hgb_release_all(deps, ndeps);
        return NULL;
    }
    o->py = py;
    for (int i = 0; i < ndeps; i++)
        o->deps[o->ndeps++] = deps[i];
    if (kind == HGB_KIND_TENSOR && ndeps > 0 && deps[0] != NULL)
        o->storage = deps[0]->kind == HGB_KIND_TENSOR ? deps[0]->storage : deps[0];
    return o;
}

hgb_obj *hgb_stream_new(aclrtStream stream, hgb_obj *device, int hold_device, aclrtContext context)
{
    hgb_obj *o = hgb_obj_new(HGB_KIND_STREAM, stream, 0, &device, hold_device ? 1 : 0, 1);
    if (o == NULL)
        return NULL;
    o->device = device;
    o->context = context;
    return o;
}

int hgb_obj_add_dep(hgb_obj *o, hgb_obj *dep)
{
    hgb_obj **d = realloc(o->deps, (size_t)(o->ndeps + 1) * sizeof *d);
    if (d == NULL)
        return 0;
    o->deps = d;
    d[o->ndeps++] = dep;
    return 1;
}

int hgb_obj_adopt(hgb_obj *o)
{
    if (__atomic_exchange_n(&o->open, 1, __ATOMIC_ACQ_REL))
        return 0;
    hgb_shell_ref(o);
    return 1;
}

void hgb_obj_close(hgb_obj *o)
{
    if (__atomic_exchange_n(&o->open, 0, __ATOMIC_SEQ_CST)) {
        if (o->kind == HGB_KIND_EXECUTOR)     /* after the flag: see hgb_take_held */
            __atomic_add_fetch(&hgb_closed_plans, 1, __ATOMIC_SEQ_CST);
        (void)hgb_obj_release(o);
    }
}

void hgb_obj_forget(hgb_obj *o)
{
    hgb_obj_close(o);
    hgb_shell_unref(o);
}

static void hgb_note(const char *function, int status)
{
    if (status != 0)
        hgb_py_cleanup_failed(function, status);
}

/* --- streams -------------------------------------------------------------------------------- */

static void hgb_lock(hgb_obj *s) { hgb_spin_lock(&s->lock); }
static void hgb_unlock(hgb_obj *s) { hgb_spin_unlock(&s->lock); }

/* Make room for `need` entries in a stream's array (`held` or `pins`; the caller holds the lock):
 * the capacity doubles from `first`.  False when out of memory (nothing changed). */
static bool hgb_grow(hgb_obj ***items, int32_t *cap, int need, int first)
{
    if (need <= *cap)
        return true;
    int c = *cap ? *cap * 2 : first;
    while (c < need)
        c *= 2;
    hgb_obj **h = realloc(*items, (size_t)c * sizeof *h);
    if (h == NULL)
        return false;
    *items = h;
    *cap = c;
    return true;
}

/* Take ownership of references in objs[0..n) (already retained) until the next sync.  A launch
 * that repeats the last one's objects adds nothing (its references are given back). */
static int hgb_hand_over(hgb_obj *stream, hgb_obj *const *objs, int n)
{
    bool same = false, full = false, ok = true;
    hgb_lock(stream);
    if (stream->nheld >= n && memcmp(stream->held + stream->nheld - n, objs, (size_t)n * sizeof *objs) == 0) {
        same = true;
    } else {
        ok = hgb_grow(&stream->held, &stream->capheld, stream->nheld + n, 16);
        if (ok) {
            memcpy(stream->held + stream->nheld, objs, (size_t)n * sizeof *objs);
            __atomic_store_n(&stream->nheld, stream->nheld + n, __ATOMIC_RELAXED);
            full = stream->nheld + stream->npins > HGB_PENDING_LIMIT;
        }
    }
    hgb_unlock(stream);
    if (same) {
        hgb_release_all(objs, n);
    } else if (!ok) {
        /* no memory to remember them: wait for the work instead, then let go */
        hgb_note("aclrtSynchronizeStream", aclrtSynchronizeStream(stream->handle));
        hgb_release_all(objs, n);
    } else if (full) {
        hgb_note("aclrtSynchronizeStream", hgb_sync(stream));
    }
    return 1;
}

int hgb_stream_hold(hgb_obj *stream, hgb_obj *const *objs, int n)
{
    for (int i = 0; i < n; i++) {
        if (!hgb_obj_retain(objs[i])) {
            hgb_release_all(objs, i);
            return 0;
        }
    }
    return hgb_hand_over(stream, objs, n);
}

int64_t hgb_stream_held(hgb_obj *stream)
{
    hgb_lock(stream);
    int64_t n = stream->nheld;
    hgb_unlock(stream);
    return n;
}

/* Move the pins of closed plans (all pins when `all`) to the end of the held objects; the
 * caller holds the lock.  Returns whether it moved any. */
static bool hgb_unpin_closed(hgb_obj *stream, bool all)
{
    int keep = 0, moved = 0;
    if (!hgb_grow(&stream->held, &stream->capheld, stream->nheld + stream->npins, 16))
        return false;          /* they stay pinned, for a later sync */
    for (int i = 0; i < stream->npins; i++) {
        hgb_obj *p = stream->pins[i];
        if (all || !__atomic_load_n(&p->open, __ATOMIC_SEQ_CST))
            stream->held[stream->nheld + moved++] = p;
        else
            stream->pins[keep++] = p;
    }
    __atomic_store_n(&stream->npins, keep, __ATOMIC_RELAXED);
    __atomic_store_n(&stream->nheld, stream->nheld + moved, __ATOMIC_RELAXED);
    return moved > 0;
}

/* Wait until no pinned run is in its launch on the stream (after its pins were taken out, or
 * before it is destroyed): a run that saw its plan and the stream open has then enqueued its
 * work, so the wait that follows covers it. */
static void hgb_quiesce(hgb_obj *stream)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    while (__atomic_load_n(&stream->busy, __ATOMIC_ACQUIRE) != 0)
        sched_yield();
}

/* Take the held objects out, with the pins of plans closed since the last look (`all`: every
 * pin): what is added meanwhile was launched after the wait began.  Nothing to take is seen
 * without the lock (a hand-over racing with it stays for a later sync). */
static hgb_obj **hgb_take_held(hgb_obj *stream, int *n, hgb_obj **local, int nlocal, bool all)
{
    uint64_t epoch = __atomic_load_n(&hgb_closed_plans, __ATOMIC_SEQ_CST);
    int32_t npins = __atomic_load_n(&stream->npins, __ATOMIC_RELAXED);
    *n = 0;
    if (__atomic_load_n(&stream->nheld, __ATOMIC_RELAXED) == 0 &&
        (npins == 0 || (!all && epoch == __atomic_load_n(&stream->pin_epoch, __ATOMIC_RELAXED))))
        return local;
    bool unpinned = false;
    hgb_lock(stream);
    if (stream->npins > 0 && (all || epoch != stream->pin_epoch)) {
        __atomic_store_n(&stream->pin_epoch, epoch, __ATOMIC_RELAXED);
        unpinned = hgb_unpin_closed(stream, all);
    }
    *n = stream->nheld;
    hgb_obj **items = local;
    if (*n > nlocal) {
        items = stream->held;          /* hand the whole array over */
        stream->held = NULL;
        stream->capheld = 0;
    } else if (*n > 0) {
        memcpy(local, stream->held, (size_t)*n * sizeof *local);
    }
    __atomic_store_n(&stream->nheld, 0, __ATOMIC_RELAXED);
    hgb_unlock(stream);
    if (unpinned)
        hgb_quiesce(stream);
    return items;
}

/* Put objects back in front (a failed wait: the work may still run). */
static void hgb_give_back(hgb_obj *stream, hgb_obj **items, int n)
{
    hgb_lock(stream);
    int total = stream->nheld + n;
    if (!hgb_grow(&stream->held, &stream->capheld, total, 16)) {
        hgb_unlock(stream);    /* cannot happen in practice; never free what may be in use */
        return;
    }
    memmove(stream->held + n, stream->held, (size_t)stream->nheld * sizeof *items);
    memcpy(stream->held, items, (size_t)n * sizeof *items);
    __atomic_store_n(&stream->nheld, total, __ATOMIC_RELAXED);
    hgb_unlock(stream);
}

/* Wait for the stream, then let go of what was held before the wait.  `drop`: the caller's own
 * reference to the stream, let go of before the held objects, so that a stream whose last holder
 * is a device among them is destroyed before that device is released. */
static int hgb_sync_take(hgb_obj *stream, bool drop, bool unpin)
{
    hgb_obj *local[64];
    int n = 0;
    hgb_obj **items = hgb_take_held(stream, &n, local, 64, unpin);
    int st = aclrtSynchronizeStream(stream->handle);
    if (st != 0 && n > 0)
        hgb_give_back(stream, items, n);
    if (drop)
        (void)hgb_obj_release(stream);
    if (st == 0)
        hgb_release_all(items, n);
    if (items != local)
        free(items);
    return st;
}

static int hgb_sync_drop(hgb_obj *stream, bool drop)
{
    return hgb_sync_take(stream, drop, false);
}

static int hgb_sync(hgb_obj *stream)
{
    return hgb_sync_drop(stream, false);
}

int hgb_stream_sync(hgb_obj *stream)
{
    if (!hgb_obj_hold(stream))
        return HGB_CLOSED;
    return hgb_sync_drop(stream, true);
}

int hgb_stream_unpin(hgb_obj *stream)
{
    if (!hgb_obj_hold(stream))
        return HGB_CLOSED;
    return hgb_sync_take(stream, true, true);
}

/* Remember `stream` as the last user of the tensor's storage. */
static void hgb_mark(hgb_obj *t, hgb_obj *stream)
{
    hgb_obj *s = t->storage;
    if (s == NULL || __atomic_load_n(&s->last, __ATOMIC_ACQUIRE) == stream)
        return;
    hgb_shell_ref(stream);
    hgb_obj *old = __atomic_exchange_n(&s->last, stream, __ATOMIC_ACQ_REL);
    if (old != NULL)
        hgb_shell_unref(old);
}

int hgb_tensor_wait(hgb_obj *t)
{
    hgb_obj *s = t->storage;
    if (s == NULL)
        return 0;
    hgb_obj *stream = __atomic_exchange_n(&s->last, NULL, __ATOMIC_ACQ_REL);
    if (stream == NULL)
        return 0;
    int st = 0;
    if (hgb_obj_retain(stream))
        st = hgb_sync_drop(stream, true);
    else                               /* released: its destroy waits for the queue (maybe on another thread right now) */
        while (!__atomic_load_n(&stream->gone, __ATOMIC_ACQUIRE))
            sched_yield();
    hgb_shell_unref(stream);
    return st;
}

/* --- destroy -------------------------------------------------------------------------------- */

static void hgb_destroy(hgb_obj *o)
{
    switch (o->kind) {
    case HGB_KIND_PY:
        hgb_py_release(o->py);
        break;
    case HGB_KIND_TENSOR:
        hgb_note("aclDestroyTensor", aclDestroyTensor(o->handle));
        break;
    case HGB_KIND_SCALAR:
        hgb_note("aclDestroyScalar", aclDestroyScalar(o->handle));
        break;
    case HGB_KIND_MEMORY:
        if (o->cached)            /* back to the allocator, before the device is let go of */
            hgb_cache_free(o->cache_device, o->handle, o->cache_block, o->cache_bin, o->cache_requested);
        else
            hgb_note("aclrtFree", aclrtFree(o->handle));
        break;
    case HGB_KIND_EXECUTOR: {
        aclOpExecutor *ex = __atomic_exchange_n((aclOpExecutor **)&o->handle, NULL, __ATOMIC_ACQ_REL);
        if (ex != NULL)
            hgb_note("aclDestroyAclOpExecutor", aclDestroyAclOpExecutor(ex));
        hgb_obj *ws = __atomic_exchange_n(&o->ws, NULL, __ATOMIC_ACQ_REL);
        if (ws != NULL)
            (void)hgb_obj_release(ws);
        hgb_obj *pin = __atomic_exchange_n(&o->pin, NULL, __ATOMIC_ACQ_REL);
        if (pin != NULL)
            hgb_shell_unref(pin);
        break;
    }
    case HGB_KIND_STREAM: {
        hgb_quiesce(o);                /* a pinned run that saw it open has launched */
        hgb_note("aclrtSynchronizeStream", aclrtSynchronizeStream(o->handle));
        if (!o->borrowed)
            hgb_note("aclrtDestroyStream", aclrtDestroyStream(o->handle));
        __atomic_store_n(&o->gone, 1, __ATOMIC_RELEASE);
        hgb_obj *local[64];
        int n = 0;
        hgb_obj **items = hgb_take_held(o, &n, local, 64, true);
        hgb_release_all(items, n);
        if (items != local)
            free(items);
        hgb_release_all(o->pins, o->npins);   /* any left pinned when memory ran out */
        o->npins = 0;
        break;
    }
    case HGB_KIND_EVENT:
        hgb_note("aclrtDestroyEvent", aclrtDestroyEvent(o->handle));
        break;
    default:
        break;
    }
    hgb_obj *last = __atomic_exchange_n(&o->last, NULL, __ATOMIC_ACQ_REL);
    if (last != NULL)
        hgb_shell_unref(last);
    /* dependencies last, newest first */
    for (int i = o->ndeps; i-- > 0;) {
        hgb_obj *d = o->deps[i];
        o->deps[i] = NULL;
        if (d != NULL)
            (void)hgb_obj_release(d);
    }
    o->ndeps = 0;
}

/* --- memory and tensors --------------------------------------------------------------------- */

static void hgb_make_current(aclrtContext context)
{
    if (context == NULL)
        return;
    aclrtContext cur = NULL;
    if (aclrtGetCurrentContext(&cur) != 0 || cur != context)
        (void)aclrtSetCurrentContext(context);
}

void hgb_obj_set_device(hgb_obj *o, int32_t device_id)
{
    o->device_id1 = device_id >= 0 ? device_id + 1 : 0;
}

/* Device memory of `size` bytes on `device` from the device allocator (a MEMORY object holding
 * the device; `wrapped` as hgb_obj_new's); a status.  A device that is being released cannot
 * take new memory: HGB_GONE. */
static int hgb_memory_wrapped(hgb_obj *device, aclrtContext context, uint64_t size, hgb_obj **out, int wrapped)
{
    if (device != NULL && !hgb_obj_retain(device))
        return HGB_GONE;
    hgb_make_current(context);
    int32_t id = device != NULL ? device->device_id1 - 1 : -1;
    if (id < 0 && aclrtGetDevice(&id) != 0) {
        (void)aclGetRecentErrMsg();
        id = -1;
    }
    void *p = NULL;
    uint64_t block = 0;
    int32_t bin = -1;
    int st = hgb_cache_alloc(id, size, &p, &block, &bin);
    if (st != 0) {
        if (device != NULL)
            (void)hgb_obj_release(device);
        return st;
    }
    *out = hgb_obj_new(HGB_KIND_MEMORY, p, 0, &device, device != NULL ? 1 : 0, wrapped);
    if (*out == NULL) {
        hgb_cache_free(id, p, block, bin, size ? size : 1);
        return ACL_ERROR_BAD_ALLOC;
    }
    (*out)->cached = 1;
    (*out)->cache_device = id;
    (*out)->cache_bin = bin;
    (*out)->cache_block = block;
    (*out)->cache_requested = size ? size : 1;
    return 0;
}

static int hgb_memory(hgb_obj *device, aclrtContext context, uint64_t size, hgb_obj **out)
{
    return hgb_memory_wrapped(device, context, size, out, 0);
}

int hgb_memory_new(hgb_call *call, hgb_obj *device, aclrtContext context, uint64_t size)
{
    call->made = NULL;
    call->data = NULL;
    hgb_obj *mem = NULL;
    int st = hgb_memory_wrapped(device, context, size, &mem, 1);
    if (st != 0) {
        call->function = "aclrtMalloc";
        return st;
    }
    call->made = mem;
    call->data = mem->handle;
    return 0;
}

uint64_t hgb_memory_block(hgb_obj *mem)
{
    return mem->cached ? mem->cache_block : 0;
}

/* A row-major tensor over new device memory of `device` holding `src` (NULL: uninitialised):
 * call->made (open, wrapped), call->data, call->tensor; a status (call->function names the
 * failing call). */
static int hgb_new_tensor(hgb_call *call, hgb_obj *device, aclrtContext context, int ndim, const int64_t *dims,
                          int dtype, int itemsize, const void *src)
{
    int64_t strides[64];
    call->made = NULL;
    call->data = NULL;
    call->tensor = NULL;
    if (ndim < 0 || ndim > 64 || (ndim > 0 && dims == NULL) || itemsize <= 0) {
        call->function = "aclCreateTensor";
        return ACLNN_ERR_PARAM_INVALID;
    }
    uint64_t n = 1;
    for (int i = ndim; i-- > 0;) {
        strides[i] = (int64_t)n;
        n *= (uint64_t)(dims[i] > 1 ? dims[i] : 1);
    }
    uint64_t count = 1;
    for (int i = 0; i < ndim; i++)
        count *= (uint64_t)(dims[i] > 0 ? dims[i] : 0);
    uint64_t nbytes = count * (uint64_t)itemsize;
    hgb_obj *mem = NULL;
    int st = hgb_memory(device, context, nbytes, &mem);
    if (st != 0) {
        call->function = "aclrtMalloc";
        return st;
    }
    if (src != NULL && nbytes != 0) {
        st = aclrtMemcpy(mem->handle, (size_t)nbytes, src, (size_t)nbytes, ACL_MEMCPY_HOST_TO_DEVICE);
        if (st != 0) {
            (void)hgb_obj_release(mem);
            call->function = "aclrtMemcpy";
            return st;
        }
    }
    aclTensor *t = aclCreateTensor(dims, (uint64_t)ndim, (aclDataType)dtype, strides, 0, ACL_FORMAT_ND, dims,
                                   (uint64_t)ndim, mem->handle);
    if (t == NULL) {
        (void)hgb_obj_release(mem);
        call->function = "aclCreateTensor";
        return ACLNN_ERR_PARAM_INVALID;
    }
    call->data = mem->handle;
    call->tensor = t;
    call->made = hgb_obj_new(HGB_KIND_TENSOR, t, 0, &mem, 1, 1);
    if (call->made == NULL) {
        (void)aclDestroyTensor(t);
        call->function = "malloc";
        return ACL_ERROR_BAD_ALLOC;
    }
    call->address = (uintptr_t)call->made;
    return 0;
}

int hgb_tensor_empty(hgb_call *call, hgb_obj *device, aclrtContext context, int ndim, const int64_t *dims,
                     int dtype, int itemsize)
{
    return hgb_new_tensor(call, device, context, ndim, dims, dtype, itemsize, NULL);
}

/* --- host arrays ----------------------------------------------------------------------------- */

static void hgb_host_drop(hgb_obj **t, int n)
{
    for (int i = 0; i < n; i++) {
        if (t[i] != NULL)
            hgb_obj_forget(t[i]);
        t[i] = NULL;
    }
}

int hgb_host_stage(hgb_call *call, hgb_obj *stream, const hgb_host_tensor *lay, void *const *data,
                   hgb_obj **t, int n, int stream_index)
{
    for (int i = 0; i < n; i++)
        t[i] = NULL;
    if (!hgb_obj_hold(stream)) {
        call->function = NULL;
        call->index = stream_index;
        return HGB_CLOSED;
    }
    for (int i = 0; i < n; i++) {
        int role = lay[i].role;
        if (role == HGB_HOST_ABSENT)
            continue;
        const void *src = (role & HGB_HOST_IN) ? data[i] : NULL;
        int st = hgb_new_tensor(call, stream->device, stream->context, lay[i].ndim, lay[i].dims, lay[i].dtype,
                                lay[i].itemsize, src);
        if (st != 0) {
            hgb_host_drop(t, i);
            (void)hgb_obj_release(stream);
            return st;
        }
        t[i] = call->made;
    }
    call->made = NULL;
    return 0;
}

int hgb_host_finish(hgb_call *call, int status, hgb_obj *stream, const hgb_host_tensor *lay,
                    void *const *data, hgb_obj **t, int n)
{
    for (int i = 0; status == 0 && i < n; i++) {
        if (t[i] == NULL || !(lay[i].role & HGB_HOST_OUT))
            continue;
        uint64_t count = 1;
        for (int k = 0; k < lay[i].ndim; k++)
            count *= (uint64_t)(lay[i].dims[k] > 0 ? lay[i].dims[k] : 0);
        size_t nbytes = (size_t)(count * (uint64_t)lay[i].itemsize);
        if (nbytes == 0)
            continue;
        status = aclrtMemcpy(data[i], nbytes, t[i]->storage->handle, nbytes, ACL_MEMCPY_DEVICE_TO_HOST);
        if (status != 0)
            call->function = "aclrtMemcpy";
    }
    hgb_host_drop(t, n);
    (void)hgb_obj_release(stream);
    return status;
}

/* --- the generic call ----------------------------------------------------------------------- */

int hgb_begin(hgb_call *call, hgb_obj *stream, hgb_obj *const *args, int n)
{
    call->executor = NULL;
    call->workspace_size = 0;
    call->made = NULL;
    call->wait_failed = 0;
    if (stream != NULL && !hgb_obj_hold(stream)) {
        call->function = NULL;
        call->index = n;
        return HGB_CLOSED;
    }
    for (int i = 0; i < n; i++) {
        if (args[i] != NULL && !hgb_obj_hold(args[i])) {
            hgb_release_all(args, i);
            if (stream != NULL)
                (void)hgb_obj_release(stream);
            call->function = NULL;
            call->index = i;
            return HGB_CLOSED;
        }
    }
    return 0;
}

/* Phase 2 of a launch; with HGB_WAIT the caller waits for it at once, so the embedded runtime
 * runs it on this thread (hgSetSynchronousLaunch) rather than leaving this thread waiting for the
 * stream's worker.  A runtime without the call (CANN) queues it as usual. */
static int hgb_phase2(hgb_phase2_fn phase2, void *ws, uint64_t size, aclOpExecutor *ex, aclrtStream stream,
                      int flags)
{
    if (!(flags & HGB_WAIT) || hgb_fp_hgSetSynchronousLaunch == hgb_missing_hgSetSynchronousLaunch)
        return phase2(ws, size, ex, stream);
    (void)hgSetSynchronousLaunch(1);
    int st = phase2(ws, size, ex, stream);
    (void)hgSetSynchronousLaunch(0);
    return st;
}

static void hgb_mark_tensors(hgb_obj *const *objs, int n, hgb_obj *stream)
{
    for (int i = 0; i < n; i++) {
        if (objs[i] != NULL && objs[i]->kind == HGB_KIND_TENSOR)
            hgb_mark(objs[i], stream);
    }
}

/* Hand held[0..n) to the stream after a successful launch, then wait when asked; lets go of the
 * caller's reference to the stream (see hgb_sync_drop). */
static int hgb_launched(hgb_call *call, hgb_obj *const *held, int n, hgb_obj *stream, int flags)
{
    if (n > 0)
        hgb_hand_over(stream, held, n);
    if (!(flags & HGB_WAIT)) {
        (void)hgb_obj_release(stream);
        return 0;
    }
    int st = hgb_sync_drop(stream, true);
    if (st != 0) {
        call->function = "aclrtSynchronizeStream";
        call->wait_failed = 1;
    }
    return st;
}

static int hgb_launch(hgb_call *call, int status, hgb_obj *const *args, int n, hgb_obj *stream, int flags,
                      hgb_phase2_fn phase2, const char *phase1_name, const char *phase2_name)
{
    if (status != 0) {
        hgb_release_all(args, n);
        (void)hgb_obj_release(stream);
        call->function = phase1_name;
        return status;
    }
    aclOpExecutor *ex = call->executor;
    call->executor = NULL;
    hgb_obj *held[HGB_MAX_ARGS + 1];
    int m = 0;
    for (int i = 0; i < n && m < HGB_MAX_ARGS; i++) {
        if (args[i] != NULL)
            held[m++] = args[i];
    }
    void *ws = NULL;
    uint64_t size = call->workspace_size;
    if (size != 0) {
        hgb_obj *wso = NULL;
        int st = hgb_memory(stream->device, stream->context, size, &wso);
        if (st != 0) {
            hgb_note("aclDestroyAclOpExecutor", aclDestroyAclOpExecutor(ex));
            hgb_release_all(held, m);
            (void)hgb_obj_release(stream);
            call->function = "aclrtMalloc";
            return st;
        }
        ws = wso->handle;
        held[m++] = wso;
    }
    int st = hgb_phase2(phase2, ws, size, ex, stream->handle, flags);
    if (st != 0) {
        hgb_note("aclDestroyAclOpExecutor", aclDestroyAclOpExecutor(ex)); /* a failed launch did not consume it */
        hgb_release_all(held, m);
        (void)hgb_obj_release(stream);
        call->function = phase2_name;
        return st;
    }
    hgb_mark_tensors(held, m, stream);
    return hgb_launched(call, held, m, stream, flags);
}

int hgb_finish(hgb_call *call, int status, hgb_obj *const *args, int n, hgb_obj *stream, int flags,
               hgb_phase2_fn phase2, const char *phase1_name, const char *phase2_name)
{
    /* the stream is held by hgb_begin for the duration of the call; hgb_launch lets go of it */
    return hgb_launch(call, status, args, n, stream, flags, phase2, phase1_name, phase2_name);
}

int hgb_plan_finish(hgb_call *call, int status, hgb_obj *const *args, int n, int repeatable,
                    hgb_phase2_fn phase2, const char *phase1_name, const char *phase2_name)
{
    call->made = NULL;
    if (status != 0) {
        hgb_release_all(args, n);
        call->function = phase1_name;
        return status;
    }
    aclOpExecutor *ex = call->executor;
    call->executor = NULL;
    if (repeatable) {
        int st = aclSetAclOpExecutorRepeatable(ex);
        if (st != 0) {
            hgb_note("aclDestroyAclOpExecutor", aclDestroyAclOpExecutor(ex));
            hgb_release_all(args, n);
            call->function = "aclSetAclOpExecutorRepeatable";
            return st;
        }
    }
    hgb_obj *p = hgb_obj_new(HGB_KIND_EXECUTOR, ex, 0, args, n, 1);
    if (p == NULL) {
        hgb_note("aclDestroyAclOpExecutor", aclDestroyAclOpExecutor(ex));
        call->function = "malloc";
        return ACL_ERROR_BAD_ALLOC;
    }
    p->phase2 = phase2;
    p->phase2_name = phase2_name;
    p->ws_size = call->workspace_size;
    p->repeatable = repeatable;
    call->made = p;
    return 0;
}

uint64_t hgb_plan_workspace_size(hgb_obj *plan) { return plan->ws_size; }

/* The plan's own workspace, allocated once (two racing threads: one allocation wins). */
static int hgb_plan_workspace(hgb_obj *plan, hgb_obj *stream, void **ws)
{
    hgb_obj *w = __atomic_load_n(&plan->ws, __ATOMIC_ACQUIRE);
    if (w == NULL) {
        int st = hgb_memory(stream->device, stream->context, plan->ws_size, &w);
        if (st != 0)
            return st;
        hgb_obj *expected = NULL;
        if (!__atomic_compare_exchange_n(&plan->ws, &expected, w, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            (void)hgb_obj_release(w);
            w = expected;
        }
    }
    *ws = w->handle;
    return 0;
}

/* Pin a repeatable plan on a stream after a run there (the caller holds both; `*ref`: the run's
 * reference to the plan): the stream keeps one reference to the plan until the plan is closed
 * and the stream has synchronised since (or the stream is destroyed), and later runs of the
 * plan there take hgb_pinned_run, which holds nothing.  The run's reference becomes the pin's
 * when the stream had none (*ref = NULL then).  Returns false (nothing changed) when out of
 * memory: the run hands its reference over as an unpinned one would. */
static bool hgb_pin(hgb_obj *plan, hgb_obj *stream, hgb_obj **ref)
{
    bool ok = true, full = false;
    hgb_lock(stream);
    int i = 0;
    while (i < stream->npins && stream->pins[i] != plan)
        i++;
    if (i == stream->npins) {
        ok = hgb_grow(&stream->pins, &stream->cappins, stream->npins + 1, 4);
        if (ok) {
            stream->pins[i] = plan;
            __atomic_store_n(&stream->npins, i + 1, __ATOMIC_RELAXED);
            *ref = NULL;
            full = stream->nheld + stream->npins > HGB_PENDING_LIMIT;
        }
    }
    hgb_unlock(stream);
    if (!ok)
        return false;
    if (__atomic_load_n(&plan->pin, __ATOMIC_ACQUIRE) != stream) {
        hgb_shell_ref(stream);
        hgb_obj *old = __atomic_exchange_n(&plan->pin, stream, __ATOMIC_SEQ_CST);
        if (old != NULL)
            hgb_shell_unref(old);
    }
    if (full)                  /* bounded: let go of the pins of closed plans */
        hgb_note("aclrtSynchronizeStream", hgb_sync(stream));
    return true;
}

/* A run of a plan pinned on `stream` (its own workspace): the pin keeps the plan alive and the
 * stream's `busy` count keeps the stream's destroy and the pin's release waiting until the launch
 * is enqueued (see hgb_take_held, hgb_quiesce), so the run takes and drops no reference.
 * HGB_MOVED when the plan was pinned elsewhere meanwhile (the caller takes the general path). */
#define HGB_MOVED (-100)
static int hgb_pinned_run(hgb_call *call, hgb_obj *plan, hgb_obj *stream, int flags)
{
    int st = 0;
    bool held = false;
    __atomic_add_fetch(&stream->busy, 1, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&plan->open, __ATOMIC_SEQ_CST)) {
        call->index = 0;
        st = HGB_CLOSED;
    } else if (!__atomic_load_n(&stream->open, __ATOMIC_SEQ_CST)) {
        call->index = 1;
        st = HGB_CLOSED;
    } else if (__atomic_load_n(&plan->pin, __ATOMIC_SEQ_CST) != stream) {
        st = HGB_MOVED;
    } else {
        aclOpExecutor *ex = __atomic_load_n((aclOpExecutor **)&plan->handle, __ATOMIC_ACQUIRE);
        void *ws = NULL;
        if (plan->ws_size != 0 && (st = hgb_plan_workspace(plan, stream, &ws)) != 0) {
            call->function = "aclrtMalloc";
        } else if ((st = hgb_phase2(plan->phase2, ws, plan->ws_size, ex, stream->handle, flags)) != 0) {
            call->function = plan->phase2_name;
        } else {
            hgb_mark_tensors(plan->deps, plan->ndeps, stream);
            /* the wait needs a reference: taken while the stream cannot be destroyed (if it is
             * being released, its destroy waits for this work anyway) */
            held = (flags & HGB_WAIT) && hgb_obj_retain(stream);
        }
    }
    if (st == HGB_CLOSED)
        call->function = NULL;
    __atomic_sub_fetch(&stream->busy, 1, __ATOMIC_RELEASE);
    if (held) {
        st = hgb_sync_drop(stream, true);
        if (st != 0) {
            call->function = "aclrtSynchronizeStream";
            call->wait_failed = 1;
        }
    }
    return st;
}

static _Thread_local hgb_call hgb_own_call;

hgb_call *hgb_thread_call(void) { return &hgb_own_call; }

static int hgb_run_plan(hgb_call *call, hgb_obj *plan, hgb_obj *stream, hgb_obj *workspace, int flags)
{
    call->wait_failed = 0;
    if (workspace == NULL && __atomic_load_n(&plan->pin, __ATOMIC_ACQUIRE) == stream) {
        int st = hgb_pinned_run(call, plan, stream, flags);
        if (st != HGB_MOVED)
            return st;
    }
    hgb_obj *args[3] = {plan, stream, workspace};
    int st = hgb_begin(call, NULL, args, 3);
    if (st != 0)
        return st;
    aclOpExecutor *ex;
    if (plan->repeatable) {
        ex = __atomic_load_n((aclOpExecutor **)&plan->handle, __ATOMIC_ACQUIRE);
    } else {
        ex = __atomic_exchange_n((aclOpExecutor **)&plan->handle, NULL, __ATOMIC_ACQ_REL);
    }
    if (ex == NULL) {
        hgb_release_all(args, 3);
        call->function = NULL;
        return HGB_CONSUMED;
    }
    void *ws = NULL;
    if (plan->ws_size != 0) {
        if (workspace != NULL) {
            ws = workspace->handle;
        } else if ((st = hgb_plan_workspace(plan, stream, &ws)) != 0) {
            if (!plan->repeatable)
                __atomic_store_n((aclOpExecutor **)&plan->handle, ex, __ATOMIC_RELEASE);
            hgb_release_all(args, 3);
            call->function = "aclrtMalloc";
            return st;
        }
    }
    st = hgb_phase2(plan->phase2, ws, plan->ws_size, ex, stream->handle, flags);
    if (st != 0) {
        if (!plan->repeatable)   /* not consumed: the plan may run again (or destroy it on close) */
            __atomic_store_n((aclOpExecutor **)&plan->handle, ex, __ATOMIC_RELEASE);
        hgb_release_all(args, 3);
        call->function = plan->phase2_name;
        return st;
    }
    hgb_mark_tensors(plan->deps, plan->ndeps, stream);
    hgb_obj *ref = plan;
    if (plan->repeatable && workspace == NULL && hgb_pin(plan, stream, &ref)) {
        if (ref != NULL)            /* pinned already: the pin covers this run */
            (void)hgb_obj_release(ref);
        return hgb_launched(call, NULL, 0, stream, flags);
    }
    hgb_obj *held[2] = {plan, workspace};
    return hgb_launched(call, held, workspace != NULL ? 2 : 1, stream, flags);
}

int hgb_plan_run(hgb_obj *plan, hgb_obj *stream, int flags)
{
    return hgb_run_plan(&hgb_own_call, plan, stream, NULL, flags);
}

int hgb_plan_run_in(hgb_obj *plan, hgb_obj *stream, hgb_obj *workspace, int flags)
{
    return hgb_run_plan(&hgb_own_call, plan, stream, workspace, flags);
}

int64_t hgb_stream_pinned(hgb_obj *stream)
{
    return __atomic_load_n(&stream->npins, __ATOMIC_RELAXED);
}

/* --- CANN's type promotion ------------------------------------------------------------------- */

/* 0 bool, 1 unsigned, 2 signed, 3 floating, 4 complex; rank within the category by width. */
static int hgb_category(int t, int *width)
{
    switch (t) {
    case ACL_BOOL: *width = 1; return 0;
    case ACL_UINT8: *width = 1; return 1;
    case ACL_UINT16: *width = 2; return 1;
    case ACL_UINT32: *width = 4; return 1;
    case ACL_UINT64: *width = 8; return 1;
    case ACL_INT8: *width = 1; return 2;
    case ACL_INT16: *width = 2; return 2;
    case ACL_INT32: *width = 4; return 2;
    case ACL_INT64: *width = 8; return 2;
    case ACL_FLOAT16: *width = 2; return 3;
    case ACL_BF16: *width = 2; return 3;
    case ACL_FLOAT: *width = 4; return 3;
    case ACL_DOUBLE: *width = 8; return 3;
    case ACL_COMPLEX64: *width = 8; return 4;
    case ACL_COMPLEX128: *width = 16; return 4;
    default: return -1;
    }
}

static int hgb_signed_of_width(int w)
{
    return w <= 1 ? ACL_INT8 : w == 2 ? ACL_INT16 : w == 4 ? ACL_INT32 : ACL_INT64;
}

int hgb_promote_types(int a, int b)
{
    int wa, wb;
    int ca = hgb_category(a, &wa), cb = hgb_category(b, &wb);
    if (ca < 0 || cb < 0)
        return -1;
    if (a == b)
        return a;
    if (ca == 0)
        return b;
    if (cb == 0)
        return a;
    if (ca != cb) {
        if (ca > cb) {    /* order so that a has the lower category */
            int t = a; a = b; b = t;
            t = ca; ca = cb; cb = t;
            t = wa; wa = wb; wb = t;
        }
        if (cb == 2 && ca == 1)          /* unsigned x signed: a signed type that holds both */
            return wb > wa ? b : hgb_signed_of_width(wa * 2);
        if (cb == 4 && ca == 3)          /* float x complex: the complex of the wider precision */
            return wa * 2 > wb ? ACL_COMPLEX128 : b;
        return b;                        /* integer x floating (or complex): the floating type */
    }
    if (ca == 3 && wa == 2 && wb == 2)   /* float16 x bfloat16 */
        return ACL_FLOAT;
    return wa >= wb ? a : b;
}

void hgb_stream_borrowed(hgb_obj *stream)
{
    stream->borrowed = 1;
}

int hgb_stream_use(hgb_obj *stream, hgb_obj *const *objs, int n)
{
    for (int i = 0; i < n; i++) {
        if (!hgb_obj_retain(objs[i])) {
            hgb_release_all(objs, i);
            return 0;
        }
    }
    hgb_mark_tensors(objs, n, stream);
    return hgb_hand_over(stream, objs, n);
}
