/* aclInit / aclFinalize, the process-wide runtime state and its environment knobs. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lifecycle.h"
#include "rt_internal.h"

hg_runtime hg_rt = {
    .life_mu = PTHREAD_MUTEX_INITIALIZER,
    .mu = PTHREAD_MUTEX_INITIALIZER,
    .streams = {.tag = 1},
    .events = {.tag = 2},
    .contexts = {.tag = 3},
};
atomic_int hg_rt_live;
/* aclInit's reference count (CANN's): 1 after aclInit, +1 per repeated aclInit, -1 per
 * aclFinalizeReference (the last one finalizes), 0 after aclFinalize.  Guarded by life_mu. */
static uint64_t init_refs;

#define DEFAULT_MEMORY (32ull << 30)
#define DEFAULT_SPIN_NS 50000ull
/* Kernel tasks of up to this many elements may run on the launching thread of an idle
 * stream (PYACL_HARDGRAD_INLINE_MAX); about where the kernel's own time reaches the
 * cost of handing it to the worker and back. */
#define DEFAULT_INLINE_MAX 4096ull
#define MAX_INLINE_MAX (1ull << 40)
/* PYACL_HARDGRAD_INLINE when unset: on (small tasks on an idle stream run in the launch). */
#define DEFAULT_INLINE true

uint64_t hg_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

aclError hg_check_init_locked(const char *func)
{
    if (hg_rt.state == 1)
        return ACL_SUCCESS;
    hg_set_error(func, "the runtime is not initialised (call aclInit first)");
    return ACL_ERROR_UNINITIALIZE;
}

aclError hg_check_init(const char *func)
{
    if (atomic_load(&hg_rt_live))
        return ACL_SUCCESS;
    hg_set_error(func, "the runtime is not initialised (call aclInit first)");
    return ACL_ERROR_UNINITIALIZE;
}

/* Unsigned decimal with an optional K/M/G/T suffix (powers of 1024, optional
 * trailing "B" or "iB").  Returns false on anything else, or on overflow. */
static bool parse_size(const char *text, uint64_t *out)
{
    if (!text)
        return false;
    while (isspace((unsigned char)*text))
        ++text;
    if (!isdigit((unsigned char)*text))
        return false;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0)
        return false;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; ++end; break;
    case 'M': shift = 20; ++end; break;
    case 'G': shift = 30; ++end; break;
    case 'T': shift = 40; ++end; break;
    default: break;
    }
    if (shift && toupper((unsigned char)end[0]) == 'I' && toupper((unsigned char)end[1]) == 'B')
        end += 2;
    else if (toupper((unsigned char)*end) == 'B')
        ++end;
    while (isspace((unsigned char)*end))
        ++end;
    if (*end != '\0')
        return false;
    if (shift && v > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

/* A setting that is set but not in its accepted form fails aclInit (ACL_ERROR_INVALID_PARAM)
 * with a message naming the variable, the value and the accepted forms; unset or empty
 * means the default. */
static aclError bad_setting_in(const char *func, const char *name, const char *value, const char *forms)
{
    hg_set_error(func, "environment variable %s=\"%s\" is invalid: expected %s", name, value, forms);
    return ACL_ERROR_INVALID_PARAM;
}

static aclError bad_setting(const char *name, const char *value, const char *forms)
{
    return bad_setting_in("aclInit", name, value, forms);
}

static const char *setting(const char *name)
{
    const char *s = getenv(name);
    return s && *s ? s : NULL;
}

aclError hg_read_device_count(const char *func, int *count)
{
    uint64_t n = 1;
    const char *s = setting("PYACL_HARDGRAD_DEVICE_COUNT");
    if (s && !(parse_size(s, &n) && n >= 1 && n <= HG_MAX_DEVICES))
        return bad_setting_in(func, "PYACL_HARDGRAD_DEVICE_COUNT", s, "a whole number from 1 to 64");
    *count = (int)n;
    return ACL_SUCCESS;
}

static aclError read_environment(void)
{
    int n = 1;
    aclError rc = hg_read_device_count("aclInit", &n);
    if (rc != ACL_SUCCESS)
        return rc;

    const char *s;
    uint64_t mem = DEFAULT_MEMORY;
    s = setting("PYACL_HARDGRAD_DEVICE_MEMORY");
    if (s && !(parse_size(s, &mem) && mem > 0 && mem <= (uint64_t)SIZE_MAX / 2))
        return bad_setting("PYACL_HARDGRAD_DEVICE_MEMORY", s,
                           "a positive whole number of bytes with an optional K, M, G or T suffix (e.g. 512M, 32G)");

    uint64_t us = DEFAULT_SPIN_NS / 1000;
    s = setting("PYACL_HARDGRAD_SPIN_US");
    if (s && !(parse_size(s, &us) && us <= 100000))
        return bad_setting("PYACL_HARDGRAD_SPIN_US", s, "a whole number of microseconds from 0 to 100000");

    s = setting("PYACL_HARDGRAD_INLINE");
    if (s && strcmp(s, "0") != 0 && strcmp(s, "1") != 0)
        return bad_setting("PYACL_HARDGRAD_INLINE", s, "0 (every task runs on the stream's worker) or 1");
    bool inline_on = s ? s[0] == '1' : DEFAULT_INLINE;

    uint64_t inline_max = DEFAULT_INLINE_MAX;
    s = setting("PYACL_HARDGRAD_INLINE_MAX");
    if (s && !(parse_size(s, &inline_max) && inline_max <= MAX_INLINE_MAX))
        return bad_setting("PYACL_HARDGRAD_INLINE_MAX", s,
                           "a whole number of elements from 0 to 2^40 with an optional K, M, G or T suffix (e.g. 4K)");

    /* read (once, also before aclInit) by aclrtGetSocName; checked here so a bad value fails */
    const char *soc = setting("PYACL_HARDGRAD_SOC");
    if (soc && strlen(soc) >= 64)
        return bad_setting("PYACL_HARDGRAD_SOC", soc, "a SoC name shorter than 64 characters (e.g. Ascend910B1)");

    s = setting("PYACL_HARDGRAD_CHECK");
    if (s && strcmp(s, "0") != 0 && strcmp(s, "1") != 0)
        return bad_setting("PYACL_HARDGRAD_CHECK", s, "1 (checking mode on) or 0");
    s = setting("PYACL_HARDGRAD_CHECK_LEAKS");
    if (s && strcmp(s, "full") != 0 && strcmp(s, "none") != 0)
        return bad_setting("PYACL_HARDGRAD_CHECK_LEAKS", s, "full (report leaks, the default) or none");

    hg_rt.device_count = n;
    hg_rt.mem_capacity = mem;
    atomic_store_explicit(&hg_rt.spin_ns, us * 1000, memory_order_relaxed);
    atomic_store_explicit(&hg_rt.inline_below, inline_on ? inline_max + 1u : 0u, memory_order_relaxed);
    return ACL_SUCCESS;
}

static aclError check_config(const char *path)
{
    if (!path || !*path)
        return ACL_SUCCESS;
    FILE *f = fopen(path, "r");
    if (!f) {
        hg_set_error("aclInit", "configPath (%s) cannot be opened: %s", path, strerror(errno));
        return ACL_ERROR_INVALID_FILE;
    }
    struct stat st;
    int is_dir = fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode);
    fclose(f);
    if (is_dir) {
        hg_set_error("aclInit", "configPath (%s) is a directory, not a file", path);
        return ACL_ERROR_INVALID_FILE;
    }
    return ACL_SUCCESS;
}

/* The configuration file's text (what init callbacks receive): "" without a file; NULL with
 * the error set when it cannot be read. */
static char *read_config(const char *path, size_t *len)
{
    *len = 0;
    if (!path || !*path)
        return calloc(1, 1);
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t cap = 0;
    for (;;) {
        if (!f)
            break;
        if (*len + 4096 + 1 > cap) {
            cap = 2 * cap + 4096 + 1;
            char *bigger = realloc(text, cap);
            if (!bigger) {
                free(text);
                text = NULL;
                break;
            }
            text = bigger;
        }
        size_t got = fread(text + *len, 1, cap - *len - 1, f);
        *len += got;
        if (got == 0) {
            text[*len] = '\0';
            break;
        }
    }
    if (f)
        fclose(f);
    if (!text)
        hg_set_error("aclInit", "configPath (%s) cannot be read", path);
    return text;
}

/* aclInit's INFO line: every setting read, the log's own included. */
static void log_settings(const char *configPath)
{
    if (!HG_LOG_ENABLED(HG_LOG_ASCENDCL, HG_LOG_INFO))
        return;
    char logs[512];
    hg_log_describe(logs, sizeof logs);
    uint64_t inline_below = atomic_load_explicit(&hg_rt.inline_below, memory_order_relaxed);
    char inl[64];
    if (inline_below)
        snprintf(inl, sizeof inl, "on (up to %llu elements)", (unsigned long long)(inline_below - 1u));
    else
        snprintf(inl, sizeof inl, "off");
    HG_LOG(HG_LOG_ASCENDCL, HG_LOG_INFO, "aclInit",
           "embedded runtime initialised: configPath %s, %d device(s) of %llu bytes, SoC %s, spin %llu us, "
           "inline launches %s; %s",
           configPath && *configPath ? configPath : "(none)", hg_rt.device_count,
           (unsigned long long)hg_rt.mem_capacity, hg_soc_name(),
           (unsigned long long)(atomic_load_explicit(&hg_rt.spin_ns, memory_order_relaxed) / 1000u), inl, logs);
}

ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath)
{
    pthread_mutex_lock(&hg_rt.life_mu);
    hg_log_configure(); /* the log's settings are read here, as CANN reads its own at start */
    pthread_mutex_lock(&hg_rt.mu);
    aclError rc = ACL_SUCCESS;
    char *config = NULL;
    size_t config_len = 0;
    if (hg_rt.state == 1) {
        hg_set_error("aclInit", "the runtime is already initialised (repeat aclInit)");
        rc = ACL_ERROR_REPEAT_INITIALIZE;
        ++init_refs;
    } else if ((rc = check_config(configPath)) == ACL_SUCCESS && (rc = read_environment()) == ACL_SUCCESS) {
        /* the init callbacks run first, without the state lock (they may call the runtime) */
        pthread_mutex_unlock(&hg_rt.mu);
        config = read_config(configPath, &config_len);
        rc = config ? hg_run_init_callbacks(config, config_len) : ACL_ERROR_INVALID_FILE;
        pthread_mutex_lock(&hg_rt.mu);
    }
    if (rc == ACL_SUCCESS) {
        for (int i = 0; i < HG_MAX_DEVICES; ++i) {
            hg_rt.dev[i].refcount = 0;
            hg_rt.dev[i].default_stream = NULL;
            hg_rt.dev[i].primary_ctx = 0;
        }
        hg_mem_init(hg_rt.device_count);
        hg_chk_init();
        hg_rt.state = 1;
        hg_rt.epoch++;
        atomic_store(&hg_rt_live, 1);
        init_refs = 1;
        log_settings(configPath);
        hg_lifecycle_initialised(config, config_len);
    }
    pthread_mutex_unlock(&hg_rt.mu);
    pthread_mutex_unlock(&hg_rt.life_mu);
    free(config);
    return hg_rt_ret(rc);
}

/* aclFinalize's work, life_mu held. */
static aclError finalize_locked(void)
{
    pthread_mutex_lock(&hg_rt.mu);
    if (hg_rt.state != 1) {
        aclError rc;
        if (hg_rt.state == 0) {
            hg_set_error("aclFinalize", "the runtime was never initialised (call aclInit first)");
            rc = ACL_ERROR_UNINITIALIZE;
        } else {
            hg_set_error("aclFinalize", "the runtime is already finalized (repeat aclFinalize)");
            rc = ACL_ERROR_REPEAT_FINALIZE;
        }
        pthread_mutex_unlock(&hg_rt.mu);
        return hg_rt_ret(rc);
    }
    /* the finalize callbacks run first, without the state lock; a failure stops aclFinalize */
    pthread_mutex_unlock(&hg_rt.mu);
    aclError cb_rc = hg_run_finalize_callbacks();
    if (cb_rc != ACL_SUCCESS)
        return cb_rc;
    pthread_mutex_lock(&hg_rt.mu);
    init_refs = 0;
    hg_lifecycle_finalized();
    if (HG_CHECKING())
        hg_chk_finalize_begin();
    hg_stream *dead = NULL;
    hg_device_close_all_locked(&dead);

    /* every remaining stream, event and explicit context goes with the runtime */
    for (uint32_t i = 0; i < hg_rt.streams.cap; ++i) {
        uintptr_t h = hg_table_handle_at(&hg_rt.streams, i);
        if (!h)
            continue;
        hg_stream *s = hg_table_remove(&hg_rt.streams, h);
        s->dead_next = dead;
        dead = s;
        hg_rt_count_add(HG_RTC_STREAMS, -1);
    }
    size_t nevents = 0;
    hg_event **evs = NULL;
    for (uint32_t i = 0; i < hg_rt.events.cap; ++i)
        if (hg_table_handle_at(&hg_rt.events, i))
            ++nevents;
    if (nevents)
        evs = malloc(nevents * sizeof *evs);
    nevents = 0;
    for (uint32_t i = 0; i < hg_rt.events.cap; ++i) {
        uintptr_t h = hg_table_handle_at(&hg_rt.events, i);
        if (!h)
            continue;
        hg_event *ev = hg_table_remove(&hg_rt.events, h);
        hg_rt_count_add(HG_RTC_EVENTS, -1);
        if (evs)
            evs[nevents++] = ev;
        /* without the list (out of memory) the event is leaked, never freed twice */
    }
    for (uint32_t i = 0; i < hg_rt.contexts.cap; ++i) {
        uintptr_t h = hg_table_handle_at(&hg_rt.contexts, i);
        if (!h)
            continue;
        hg_context *c = hg_table_remove(&hg_rt.contexts, h);
        if (!c->primary)
            hg_rt_count_add(HG_RTC_CONTEXTS, -1);
        free(c);
    }
    hg_rt.state = 2;
    hg_rt.epoch++;
    atomic_store(&hg_rt_live, 0);
    pthread_mutex_unlock(&hg_rt.mu);

    /* drain outside the lock: queued work may still reference events */
    hg_stream_shutdown_list(dead);
    for (size_t i = 0; i < nevents; ++i)
        hg_event_release(evs[i]);
    free(evs);
    hg_mem_release_all();
    HG_LOG(HG_LOG_ASCENDCL, HG_LOG_INFO, "aclFinalize",
           "embedded runtime finalized: every device reset, %zu event(s) and the remaining streams released",
           nevents);
    if (HG_CHECKING())
        hg_chk_finalize_end();
    return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclFinalize(void)
{
    pthread_mutex_lock(&hg_rt.life_mu);
    aclError rc = finalize_locked();
    pthread_mutex_unlock(&hg_rt.life_mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclFinalizeReference(uint64_t *refCount)
{
    pthread_mutex_lock(&hg_rt.life_mu);
    aclError rc = ACL_SUCCESS;
    if (init_refs > 1) {
        --init_refs;
    } else if (init_refs == 0) {
        hg_set_error("aclFinalizeReference", "no aclInit reference is left (aclFinalizeReference repeated, or "
                                             "called without aclInit)");
        rc = ACL_ERROR_REPEAT_FINALIZE;
    } else {
        rc = finalize_locked();
    }
    if (refCount)
        *refCount = init_refs;
    pthread_mutex_unlock(&hg_rt.life_mu);
    return rc;
}

ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
    if (!majorVersion || !minorVersion || !patchVersion) {
        hg_set_error("aclrtGetVersion", "%s is NULL",
                     !majorVersion ? "majorVersion" : !minorVersion ? "minorVersion" : "patchVersion");
        return ACL_ERROR_INVALID_PARAM;
    }
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
}
