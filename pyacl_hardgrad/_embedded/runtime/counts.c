/* Live-object counters behind hgGetLiveCounts(); lock-free so every library can
 * update them from any thread. */
#include "rt_internal.h"

static _Atomic int64_t g_ext[3];  /* tensors, scalars, executors (other libraries) */
static _Atomic int64_t g_rt_counts[6];

void hg_count_add(hg_count_kind kind, int64_t delta)
{
    if ((unsigned)kind < 3u)
        atomic_fetch_add_explicit(&g_ext[kind], delta, memory_order_relaxed);
}

void hg_rt_count_add(int which, int64_t delta)
{
    if (which >= 0 && which < 6)
        atomic_fetch_add_explicit(&g_rt_counts[which], delta, memory_order_relaxed);
}

ACL_FUNC_VISIBILITY aclError hgGetLiveCounts(hgLiveCounts *counts)
{
    if (!counts) {
        hg_set_error("hgGetLiveCounts", "counts is NULL");
        return ACL_ERROR_INVALID_PARAM;
    }
    counts->deviceAllocations = atomic_load(&g_rt_counts[HG_RTC_DEV_ALLOCS]);
    counts->deviceBytes = atomic_load(&g_rt_counts[HG_RTC_DEV_BYTES]);
    counts->hostAllocations = atomic_load(&g_rt_counts[HG_RTC_HOST_ALLOCS]);
    counts->tensors = atomic_load(&g_ext[HG_COUNT_TENSOR]);
    counts->scalars = atomic_load(&g_ext[HG_COUNT_SCALAR]);
    counts->executors = atomic_load(&g_ext[HG_COUNT_EXECUTOR]);
    counts->streams = atomic_load(&g_rt_counts[HG_RTC_STREAMS]);
    counts->events = atomic_load(&g_rt_counts[HG_RTC_EVENTS]);
    counts->contexts = atomic_load(&g_rt_counts[HG_RTC_CONTEXTS]);
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY const char *hgEmbeddedVersion(void)
{
    return "pyacl_hardgrad-embedded 0.1.0";
}
