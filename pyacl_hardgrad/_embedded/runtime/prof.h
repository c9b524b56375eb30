/*
 * pyacl_hardgrad embedded runtime: the recorder's hooks inside libascendcl (prof.c).
 * Callers test HG_PROFILING() first; the hooks take only the recorder's own mutex
 * (innermost: they may be called with a stream's queue lock held), except
 * hg_prof_memory, which reads the memory registry and so is called with no lock held.
 */
#ifndef PYACL_HARDGRAD_RT_PROF_H_
#define PYACL_HARDGRAD_RT_PROF_H_

#include <stdint.h>

#include "rt_internal.h"

/* Task t (its seq set) goes to stream `sid` of device `dev`: called before it is published,
 * t0 when the enqueue began.  Records the host's launch slice and what the task is. */
void hg_prof_enqueue(int dev, int32_t sid, const hg_task *t, const char *func, uint64_t t0);
/* Task t of stream `sid` of device `dev` ran from t0 to t1 (ns, hg_now_ns clock). */
void hg_prof_ran(int dev, int32_t sid, const hg_task *t, uint64_t t0, uint64_t t1);
/* The bytes of device memory in use on dev changed. */
void hg_prof_memory(int dev);
/* A synchronous call on the calling thread from t0 to t1 (args: JSON members or NULL). */
void hg_prof_host_call(const char *func, uint64_t t0, uint64_t t1, const char *args);
/* The event object ev is freed: forget its records. */
void hg_prof_event_gone(const void *ev);

#endif /* PYACL_HARDGRAD_RT_PROF_H_ */
