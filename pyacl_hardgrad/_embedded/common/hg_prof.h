/*
 * pyacl_hardgrad embedded runtime: the profiler's session calls, between libmsprofiler
 * (the aclprof* API: argument checks, configs, stamps) and the recorder in libascendcl
 * (runtime/prof.c: the hooks, the events, the trace file).  Nothing here is public API.
 */
#ifndef PYACL_HARDGRAD_EMBEDDED_HG_PROF_H_
#define PYACL_HARDGRAD_EMBEDDED_HG_PROF_H_

#include <stdint.h>

#include "hg_internal.h"

/* Which data a session records (from the ACL_PROF_* bits of its config). */
#define HG_PROF_TASKS 0x1u    /* tasks, their launches, event flows */
#define HG_PROF_MEMORY 0x2u   /* device memory in use, as counters */
#define HG_PROF_TX 0x4u       /* the msproftx marks and ranges */

/* Every call returns ACL_SUCCESS or an ACL error code with aclGetRecentErrMsg's text set,
 * naming `func`. */

/* aclprofInit: results go under dir (created when missing). */
HG_INTERNAL aclError hg_prof_init(const char *func, const char *dir);
/* aclprofFinalize: stops a running session (writing it) and forgets the folder. */
HG_INTERNAL aclError hg_prof_finalize(const char *func);
/* aclprofStart: record `what` (HG_PROF_*) for the devices in dev_mask (bit d: device d). */
HG_INTERNAL aclError hg_prof_start(const char *func, unsigned what, uint64_t dev_mask);
/* aclprofStop: stop recording and write the trace (the session's events so far). */
HG_INTERNAL aclError hg_prof_stop(const char *func);
/* The trace file the last stop wrote ("" before any). */
HG_INTERNAL const char *hg_prof_last_output(void);

/* msproftx; each does nothing (and succeeds) while no session records HG_PROF_TX. */
HG_INTERNAL aclError hg_prof_mark(const char *func, const char *msg);
/* A mark on the host now and on stream (NULL: the default stream) when its turn comes. */
HG_INTERNAL aclError hg_prof_mark_stream(const char *func, const char *msg, aclrtStream stream);
HG_INTERNAL aclError hg_prof_push(const char *func, const char *msg);
HG_INTERNAL aclError hg_prof_pop(const char *func);
HG_INTERNAL aclError hg_prof_range_start(const char *func, const char *msg, uint32_t *id);
HG_INTERNAL aclError hg_prof_range_stop(const char *func, uint32_t id);

#endif /* PYACL_HARDGRAD_EMBEDDED_HG_PROF_H_ */
