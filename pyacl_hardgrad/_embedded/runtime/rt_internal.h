/*
 * pyacl_hardgrad embedded runtime: state shared by the files of libascendcl only.
 *
 * Locking (outer to inner): hg_rt.life_mu (aclInit/aclFinalize only) -> hg_rt.mu
 * (init state, devices, handle tables) -> hg_event.mu -> hg_stream.qmu; the memory
 * registry has its own mutex and is never held together with another lock.
 */
#ifndef PYACL_HARDGRAD_RT_INTERNAL_H_
#define PYACL_HARDGRAD_RT_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "hg_internal.h"

#define HG_MAX_DEVICES 64
#define HG_SOC_NAME_CAP 64

/* Hint to the CPU that the caller is busy-waiting (keeps spins cheap for the sibling
 * hyper-thread and for power). */
#if defined(__x86_64__) || defined(__i386__)
#define HG_CPU_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__) || defined(__arm__)
#define HG_CPU_RELAX() __asm__ __volatile__("yield" ::: "memory")
#else
#define HG_CPU_RELAX() atomic_signal_fence(memory_order_seq_cst)
#endif

/* Helgrind does not model C11 atomics: where its header is available, tell it which
 * fields are atomics and which reference drops order a free.  No-ops otherwise (and
 * a few instructions when not running under valgrind). */
#if defined(__has_include)
#if __has_include(<valgrind/helgrind.h>)
#include <valgrind/helgrind.h>
#define HG_WITH_HELGRIND 1
#endif
#endif
#ifdef HG_WITH_HELGRIND
#define HG_ATOMIC_FIELD(addr) VALGRIND_HG_DISABLE_CHECKING((addr), sizeof *(addr))
#define HG_HAPPENS_BEFORE(addr) ANNOTATE_HAPPENS_BEFORE(addr)
#define HG_HAPPENS_AFTER(addr) ANNOTATE_HAPPENS_AFTER(addr)
#define HG_FORGET(addr) ANNOTATE_HAPPENS_BEFORE_FORGET_ALL(addr)
#else
#define HG_ATOMIC_FIELD(addr) ((void)0)
#define HG_HAPPENS_BEFORE(addr) ((void)0)
#define HG_HAPPENS_AFTER(addr) ((void)0)
#define HG_FORGET(addr) ((void)0)
#endif

uint64_t hg_now_ns(void);

/* ---------------------------------------------------------------- handle tables */
/* Handles given to callers are encoded (slot, generation, kind) numbers, never
 * pointers: a stale or foreign handle is detected without being dereferenced. */
typedef struct hg_table {
    void **objs;
    uint32_t *gens;
    uint32_t *free_slots;
    uint32_t cap;
    uint32_t nfree;
    uint32_t next_gen; /* survives aclFinalize so old handles stay stale */
    unsigned tag;
} hg_table;

uintptr_t hg_table_add(hg_table *t, void *obj); /* 0 when out of memory */
void *hg_table_get(const hg_table *t, uintptr_t handle);
void *hg_table_remove(hg_table *t, uintptr_t handle);
/* Handle of the object in slot i, 0 when the slot is empty (for iteration). */
uintptr_t hg_table_handle_at(const hg_table *t, uint32_t i);

/* ---------------------------------------------------------------- counts */
enum {
    HG_RTC_DEV_ALLOCS = 0,
    HG_RTC_DEV_BYTES,
    HG_RTC_HOST_ALLOCS,
    HG_RTC_STREAMS,
    HG_RTC_EVENTS,
    HG_RTC_CONTEXTS
};
void hg_rt_count_add(int which, int64_t delta);

/* ---------------------------------------------------------------- streams */
typedef struct hg_event hg_event;

typedef enum hg_task_kind {
    HG_TASK_USER = 0,
    HG_TASK_MEMCPY,
    HG_TASK_MEMSET,
    HG_TASK_RECORD,
    HG_TASK_WAIT,
    HG_TASK_RESET_EVENT,
    HG_TASK_VALUE_WRITE, /* 64-bit store of `rec` to dst */
    HG_TASK_VALUE_WAIT   /* wait until the word at dst meets condition `value` against `rec` */
} hg_task_kind;

/* 40 bytes, so a task and its ready flag fit one cache line of the stream's ring. */
typedef struct hg_task {
    hg_task_kind kind;
    int value;          /* MEMSET byte */
    uint64_t seq;
    union {
        struct {        /* USER */
            hg_task_fn fn;
            void *arg;
        };
        struct {        /* MEMCPY, MEMSET */
            void *dst;
            const void *src;
            size_t n;
        };
        struct {        /* RECORD, WAIT, RESET_EVENT; VALUE_* use rec (ev unused) */
            hg_event *ev; /* the task owns one reference */
            uint64_t rec;
            void *word;   /* VALUE_*: the 64-bit word */
        };
    };
} hg_task;

/* The task queue (stream.c): a power-of-two array of cache-line slots indexed by seq. */
struct hg_ring;

#define HG_CACHE_LINE 64

/* Fields are grouped by the thread that writes them, each group on its own cache
 * line(s): the callers' lock and counters, the worker's progress counter and the
 * read-mostly fields never share a line, so a caller spinning on `completed` does not
 * slow the worker down and the worker's writes do not steal the callers' lines. */
typedef struct hg_stream {
    /* read by the worker on every poll, written rarely (ring growth, shutdown) */
    _Alignas(HG_CACHE_LINE) _Atomic(struct hg_ring *) ring;
    atomic_int stop;
    int device;
    bool is_default;
    atomic_int abandon;         /* aclrtDestroyStreamForce: skip what is still queued */
    pthread_t thread;
    struct hg_stream *dead_next;
    int32_t id;                 /* aclrtStreamGetId */
    uint32_t flags;             /* creation flags (aclrtStreamGetFlags) */
    uint32_t priority;          /* 0 (highest) .. 7 */
    uint64_t failure_mode;      /* ACL_CONTINUE_ON_FAILURE / ACL_STOP_ON_FAILURE */
    bool failure_mode_set;
    uint32_t overflow_switch;   /* aclrtSetStreamOverflowSwitch: its tasks record float overflow */
    uint32_t user_tag;          /* ACL_STREAM_ATTR_USER_CUSTOM_TAG */
    uint32_t cache_op_info;     /* ACL_STREAM_ATTR_CACHE_OP_INFO */
    uint32_t res_limit[2];      /* aclrtSetStreamResLimit values, 0 = the device's */
    struct hg_subscriber *report; /* aclrtSubscribeReport thread; guarded by callback.c's lock */
    bool solo;                  /* the worker may run on one CPU only: it never busy-spins */

    /* written by callers only */
    _Alignas(HG_CACHE_LINE) pthread_mutex_t qmu; /* ring contents and growth, freed, sleeping */
    _Atomic uint64_t submitted; /* seq of the newest queued task (written under qmu) */
    uint64_t freed;             /* last `completed` seen by a producer: seqs up to it left the ring */
    atomic_int refs;            /* owner (table or device) + temporary users */
    int sleeping;               /* the worker is parked on work_cv */
    pthread_cond_t work_cv;
    uint64_t inline_seq;        /* newest seq run on a launching thread (hg_stream_launch) */
    atomic_int producer_cpu;    /* CPU of the newest submitter (-1: unknown) */

    /* written by the worker once per task; read by synchronising callers */
    _Alignas(HG_CACHE_LINE) _Atomic uint64_t completed; /* seq of the newest finished task */
    atomic_int waiters;         /* callers parked (or about to park) on done_cv */
    atomic_int worker_cpu;      /* CPU the worker last ran on (-1: unknown) */

    /* slow path only: parking synchronisers */
    _Alignas(HG_CACHE_LINE) pthread_mutex_t done_mu;
    pthread_cond_t done_cv;
} hg_stream;

hg_stream *hg_stream_new(int device, bool is_default, aclError *err);
/* Resolve a handle (NULL = default stream of the current device, created when
 * `create`) and take a reference.  Caller holds hg_rt.mu.  Returns NULL with *err set
 * (and the error text naming func), or NULL with *err == 0 when `create` is false
 * and the default stream does not exist yet. */
hg_stream *hg_stream_acquire_locked(aclrtStream handle, const char *func, bool create, aclError *err);
void hg_stream_release(hg_stream *s);
aclError hg_stream_push(hg_stream *s, hg_task *task, const char *func);
/* As hg_stream_push for a USER task of `elements` work elements (HG_COST_UNKNOWN: not
 * known): when the stream is idle -- nothing queued or running, so nothing the task must
 * wait for -- and the task is small (inline execution on, elements <= the limit), it runs
 * on the calling thread before this returns, as task number seq of the stream: later
 * tasks, records and synchronisers see it done exactly as if the worker had run it. */
aclError hg_stream_push_small(hg_stream *s, hg_task *task, const char *func, uint64_t elements);
void hg_stream_sync(hg_stream *s);
/* As hg_stream_sync, giving up at deadline_ns (hg_now_ns clock); false on time-out. */
bool hg_stream_sync_until(hg_stream *s, uint64_t deadline_ns);
/* Everything queued has run. */
bool hg_stream_idle(hg_stream *s);
/* Deadline for a timeout argument in ms (-1: for ever, as UINT64_MAX). */
uint64_t hg_deadline_ms(int32_t timeout_ms);
/* The CLOCK_REALTIME time point matching deadline_ns (for pthread timed waits). */
struct timespec hg_realtime_at(uint64_t deadline_ns);
/* Stop accepting work, run what is queued, join the worker, drop the owner's ref. */
void hg_stream_shutdown(hg_stream *s);
void hg_stream_shutdown_list(hg_stream *list);
uint64_t hg_spin_ns(void);
/* Poll cond(arg) for up to spin_ns (yielding the CPU now and then once the wait is
 * not short); true as soon as it holds, false when the time ran out.  When the thread
 * that must make cond true shares the CPU -- *peer_cpu is the CPU it last ran on (NULL:
 * not known), or solo (this thread may use one CPU only) -- a busy poll cannot help it:
 * every poll then gives the CPU away (sched_yield) instead. */
bool hg_spin_until(bool (*cond)(void *), void *arg, uint64_t spin_ns);
bool hg_spin_until_peer(bool (*cond)(void *), void *arg, uint64_t spin_ns, const atomic_int *peer_cpu, bool solo);
/* The calling thread's CPU, -1 when the system does not tell. */
int hg_this_cpu(void);

/* ---------------------------------------------------------------- callbacks */
struct hg_subscriber;
/* Detach the stream's report subscription and run, on the calling thread, the callbacks
 * already handed to the subscribed thread but not processed.  No lock held. */
void hg_report_detach_stream(hg_stream *s);

/* ---------------------------------------------------------------- last error */
/* Record a runtime-layer code (107xxx, 207xxx, 507xxx) as the thread's last error
 * (aclrtGetLastError); returns rc.  Public runtime calls return through it. */
aclError hg_rt_ret(aclError rc);

/* ---------------------------------------------------------------- events */
void hg_event_task_record(hg_event *ev, uint64_t rec);
void hg_event_task_wait(hg_event *ev, uint64_t rec);
void hg_event_task_reset(hg_event *ev);
void hg_event_release(hg_event *ev);
/* Checking mode: the events of dev, whose last reset just ran, are noted (hg_chk_event_reset). */
void hg_events_device_closed_locked(int dev);
void hg_event_retain(hg_event *ev);

/* ---------------------------------------------------------------- devices */
typedef struct hg_context {
    int device;
    bool primary;
} hg_context;

typedef struct hg_device {
    int refcount;
    uint64_t peer_mask;     /* devices this one may access (aclrtDeviceEnablePeerAccess) */
    uint32_t res_limit[2];  /* aclrtSetDeviceResLimit values, 0 = not set */
    int64_t sys_opt[4];     /* aclrtCtxSetSysParamOpt values of the default context */
    uint8_t sys_opt_set;    /* bit i: sys_opt[i] was set */
    uint64_t gen;           /* bumped when the device closes: thread bindings go stale */
    hg_stream *default_stream;
    uintptr_t primary_ctx;
} hg_device;

typedef struct hg_runtime {
    pthread_mutex_t life_mu;
    pthread_mutex_t mu;
    int state;              /* 0 never initialised, 1 live, 2 finalized */
    uint64_t epoch;         /* bumped by aclInit and aclFinalize */
    int device_count;
    uint64_t mem_capacity;
    _Atomic uint64_t spin_ns; /* read by stream workers and waiters while aclInit may set it */
    _Atomic uint64_t inline_below; /* small tasks (elements < this) may run on the launching thread; 0: never */
    hg_device dev[HG_MAX_DEVICES];
    hg_table streams, events, contexts;
} hg_runtime;

extern hg_runtime hg_rt;
extern atomic_int hg_rt_live; /* lock-free mirror of hg_rt.state == 1 */

/* 0 when initialised, else sets the text and returns ACL_ERROR_UNINITIALIZE. */
aclError hg_check_init_locked(const char *func);
aclError hg_check_init(const char *func);
/* Current device of the calling thread, -1 when none.  Caller holds hg_rt.mu. */
int hg_current_device_locked(void);
aclError hg_require_device_locked(const char *func, int *dev);
/* The usual front of a call, caller holding hg_rt.mu: initialised; out not NULL (when
 * out_name is given); a current device (when dev is given, stored there). */
aclError hg_enter_locked(const char *func, const void *out, const char *out_name, int *dev);
void hg_tls_bind_locked(int dev, uintptr_t ctx);
void hg_tls_unbind(void);
uintptr_t hg_tls_ctx(void);
aclError hg_device_retain_locked(int dev, const char *func);
/* Drops one reference; when the device closes its streams are moved to *dead. */
void hg_device_release_locked(int dev, hg_stream **dead, const char *func);
/* aclFinalize: close every device, whatever its count. */
void hg_device_close_all_locked(hg_stream **dead);

/* PYACL_HARDGRAD_DEVICE_COUNT (default 1), the emulated driver's device count: read by aclInit
 * and by aclrtGetDeviceCount outside an aclInit..aclFinalize span.  A value in no accepted form
 * sets func's error text naming the variable and returns ACL_ERROR_INVALID_PARAM. */
aclError hg_read_device_count(const char *func, int *count);
/* The SoC name, read from the environment on first use (also before aclInit). */
const char *hg_soc_name(void);
bool hg_peer_enabled_locked(int from, int to);
bool hg_peer_enabled(int from, int to);

/* ---------------------------------------------------------------- memory */
/* Device of the device allocation holding [p, p + n): the device id, -1 when p is not in
 * a device allocation, -2 when it starts in one but runs past its end. */
int hg_mem_device_of(const void *p, size_t n);
/* Bytes of device memory in use on dev. */
size_t hg_mem_used(int dev);
void hg_mem_init(int device_count);
void hg_mem_release_all(void);

#include "check.h"

#endif /* PYACL_HARDGRAD_RT_INTERNAL_H_ */
