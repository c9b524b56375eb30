/*
 * pyacl_hardgrad embedded runtime: the checking mode's observer (check.c).
 *
 * With PYACL_HARDGRAD_CHECK=1 at aclInit the runtime reports each call's effect on memory and
 * ordering to the hooks below; the checker keeps its own shadow state (allocations with their
 * written bytes and pending accesses, a clock per stream, vector clocks on streams, events and
 * the host) and prints findings.  Off, every hook site costs one load and a predictable branch:
 * callers test HG_CHECKING() first.  Findings never change what a call does.
 *
 * Locks: the checker's own mutex is innermost; hooks may be called with any runtime lock held
 * and call nothing that takes one.
 */
#ifndef PYACL_HARDGRAD_RT_CHECK_H_
#define PYACL_HARDGRAD_RT_CHECK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hg_internal.h"

struct hg_stream;
struct hg_event;
struct hg_task;

/* aclInit: read the checking settings (after the runtime's own), turn checking on. */
void hg_chk_init(void);
/* aclFinalize, before anything is torn down: leaks of every live object. */
void hg_chk_finalize_begin(void);
/* aclFinalize, at its end: the summary, the shadow state and the quarantine released. */
void hg_chk_finalize_end(void);
/* A public call returned (hg_rt_ret): the next hook starts a new call number. */
void hg_chk_call_end(void);

/* memory */
void hg_chk_alloc(const char *func, void *p, size_t size, int device, bool host);
/* Before a free takes effect: double-free, invalid-free, free-while-in-use. */
void hg_chk_free(const char *func, void *p, bool host);
/* After aclrtFree released p from the registry: true when the checker keeps (and poisons) the
 * block in its quarantine instead of the caller freeing it. */
bool hg_chk_keep_freed(void *p, size_t size);
/* One side of a copy or set, [p, p + n), as the call gives it: out-of-bounds, use-after-free. */
void hg_chk_bounds(const char *func, const char *what, const void *p, size_t n);
/* A synchronous host access to [p, p + n) (write or read; uninit: a read that must find written
 * bytes, as a device-to-host copy).  Memory that is not a device allocation is ignored. */
void hg_chk_host_access(const char *func, const void *p, size_t n, bool write, bool uninit);

/* streams and events */
void hg_chk_stream_created(const char *func, struct hg_stream *s);
/* Under the stream's queue lock, once the task has its number. */
void hg_chk_enqueue(struct hg_stream *s, const struct hg_task *t, const char *func);
/* The calling thread runs task seq of s (a host function or callback; s NULL: no longer): its
 * host accesses are ordered as that task is.  hg_chk_task_current: the task's number, or 0. */
void hg_chk_task_begin(struct hg_stream *s, uint64_t seq);
void hg_chk_task_current(uint64_t *seq);
/* The host waited until task seq of s completed. */
void hg_chk_stream_synced(struct hg_stream *s, uint64_t seq);
/* aclrtDestroyStream, before it drains: destroy-pending. */
void hg_chk_stream_destroy(const char *func, struct hg_stream *s);
/* The stream's worker has stopped: its clock slot is released. */
void hg_chk_stream_gone(struct hg_stream *s);
void hg_chk_event_created(const char *func, struct hg_event *ev, int device);
void hg_chk_event_destroyed(struct hg_event *ev);
/* Work queued on s after this waits for the event's newest record. */
void hg_chk_stream_wait(struct hg_stream *s, struct hg_event *ev);
/* The host waited for the event's newest record. */
void hg_chk_event_synced(struct hg_event *ev);

/* devices */
/* A call that needs a current device found none: no-current-device, or use-after-reset when the
 * thread's device `reset_dev` (>= 0) was reset since it was set. */
void hg_chk_no_device(const char *func, int reset_dev);
/* The stream handle h went with its device dev (aclrtResetDevice). */
void hg_chk_handle_reset(uintptr_t h, int dev);
/* A call got a stream handle that is not live: use-after-reset when its device's reset took it. */
void hg_chk_stale_stream(const char *func, uintptr_t h);
/* Event h belonged to device dev, which was just released (its last reset): a later use of it is
 * use-after-reset (the runtime keeps the event working; on an NPU the reset destroyed it). */
void hg_chk_event_reset(uintptr_t h, int dev);
/* A call used event h: use-after-reset when a reset took its device (forget: it is being destroyed). */
void hg_chk_stale_event(const char *func, uintptr_t h, bool forget);
/* The last reference to dev went (func: aclrtResetDevice, aclrtResetDeviceForce, ...): leaks on it;
 * its live allocations went with it, so a later use or free of them is use-after-reset. */
void hg_chk_device_closed(int dev, const char *func);

/* ASCEND_LAUNCH_BLOCKING=1: every launch waits for its completion. */
extern atomic_int hg_chk_launch_blocking;

#endif /* PYACL_HARDGRAD_RT_CHECK_H_ */
