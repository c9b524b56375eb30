/* The embedded runtime's application log, in the layout and at the places CANN's own log uses.
 *
 * Where the facts come from (names and formats only): CANN's log reference ("Log Format",
 * "Viewing Logs (Ascend EP)") and environment-variable reference (ASCEND_GLOBAL_LOG_LEVEL,
 * ASCEND_MODULE_LOG_LEVEL, ASCEND_SLOG_PRINT_TO_STDOUT, ASCEND_PROCESS_LOG_PATH,
 * ASCEND_WORK_PATH), the dlog_* macros of CANN's public slog headers (they put "[file:line]"
 * in front of the content) and AscendCL's log macros (whose content starts "tid func: "):
 *
 *   [ERROR] ASCENDCL(4242,python3):2026-12-05-08:10:11.123.456 [device.c:155]4243 aclrtSetDevice: ...
 *    level  module   pid  process  local time: ms.us            file:line    thread
 *
 * Levels: 0 DEBUG, 1 INFO, 2 WARNING, 3 ERROR (the default), 4 NULL (nothing).  A value of
 * ASCEND_GLOBAL_LOG_LEVEL other than 0..4 means the default, as CANN documents; an
 * ASCEND_MODULE_LOG_LEVEL ("GE=0:ASCENDCL=1", CANN's module names) takes precedence per module,
 * and with a format error or an unknown module name it is ignored as a whole.  The modules
 * written here are ASCENDCL (the runtime layer), OP (aclnn operators) and APP (aclAppLog).
 *
 * Output: ASCEND_SLOG_PRINT_TO_STDOUT=1 prints the lines to stdout; any other value (or none)
 * writes them to <root>/debug/plog/plog-<pid>_<YYYYmmddHHMMSSmmm>.log, root being
 * $ASCEND_PROCESS_LOG_PATH, else $ASCEND_WORK_PATH/log, else $HOME/ascend/log (directories
 * made as needed; the file is opened at the first line, a forked child opens its own).  A
 * line that cannot be written is dropped: the log never changes what a call returns.
 *
 * Every line is formatted into one buffer and written with one write(2), so lines of
 * concurrent threads never interleave.  The settings are read at aclInit (and at the first
 * line before it); a level check costs one relaxed load. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "rt_internal.h"

#define HG_LOG_LINE_CAP 2048
#define HG_LOG_PATH_CAP 4096

int hg_log_min[HG_LOG_NMODULES]; /* 0 until configured: every line takes the slow path */

static pthread_mutex_t g_log_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_configured;                 /* atomic: settings read */
static bool g_to_stdout;
static char g_root[HG_LOG_PATH_CAP];     /* the log root ("" when none could be found) */
static char g_pname[64] = "unknown";
static int g_fd = -1;                    /* the plog file, opened at the first line */
static pid_t g_fd_pid;                   /* the process that opened it */

static const char *const g_level_names[] = {"DEBUG", "INFO", "WARNING", "ERROR", "NULL"};
static const char *const g_module_names[HG_LOG_NMODULES] = {"ASCENDCL", "OP", "APP", "HCCL"};

/* CANN's module names (its log_types.h), accepted in ASCEND_MODULE_LOG_LEVEL; only the four
 * above log anything here. */
static const char *const g_cann_modules[] = {
    "SLOG", "IDEDD", "IDEDH", "HCCL", "FMK", "HIAIENGINE", "DVPP", "RUNTIME", "CCE", "HDC", "DRV",
    "MDCFUSION", "MDCLOCATION", "MDCPERCEPTION", "MDCFSM", "MDCCOMMON", "MDCMONITOR", "MDCBSWP",
    "MDCDEFAULT", "MDCSC", "MDCPNC", "MLL", "DEVMM", "KERNEL", "LIBMEDIA", "CCECPU", "ASCENDDK", "ROS",
    "HCCP", "ROCE", "TEFUSION", "PROFILING", "DP", "APP", "TS", "TSDUMP", "AICPU", "LP", "TDT", "FE",
    "MD", "MB", "ME", "IMU", "IMP", "GE", "MDCFUSA", "CAMERA", "ASCENDCL", "TEEOS", "ISP", "SIS", "HSM",
    "DSS", "PROCMGR", "BBOX", "AIVECTOR", "TBE", "FV", "MDCMAP", "TUNE", "HSS", "FFTS", "OP", "UDF",
    "HICAID", "TSYNC", "AUDIO", "TPRT", "ASCENDCKERNEL", "ASYS", "ATRACE", "RTC", "SYSMONITOR",
};

/* "0".."4" exactly: the level, else -1. */
static int level_value(const char *s, size_t n)
{
    return n == 1 && s[0] >= '0' && s[0] <= '4' ? s[0] - '0' : -1;
}

/* ASCEND_MODULE_LOG_LEVEL into levels[] (entries it names; -1 stays for the others).  False,
 * with levels[] untouched, when any part is malformed or names no CANN module. */
static bool parse_module_levels(const char *s, int levels[HG_LOG_NMODULES])
{
    int found[HG_LOG_NMODULES];
    for (int m = 0; m < HG_LOG_NMODULES; ++m)
        found[m] = -1;
    while (*s) {
        const char *eq = strchr(s, '=');
        if (!eq || eq == s)
            return false;
        const char *end = strchr(eq + 1, ':');
        if (!end)
            end = eq + strlen(eq);
        int level = level_value(eq + 1, (size_t)(end - eq - 1));
        if (level < 0)
            return false;
        size_t name_len = (size_t)(eq - s);
        bool known = false;
        for (size_t i = 0; i < sizeof g_cann_modules / sizeof g_cann_modules[0]; ++i)
            if (strlen(g_cann_modules[i]) == name_len && strncmp(g_cann_modules[i], s, name_len) == 0)
                known = true;
        if (!known)
            return false;
        for (int m = 0; m < HG_LOG_NMODULES; ++m)
            if (strlen(g_module_names[m]) == name_len && strncmp(g_module_names[m], s, name_len) == 0)
                found[m] = level;
        if (*end == '\0')
            break;
        s = end + 1;
        if (*s == '\0') /* a trailing ':' */
            return false;
    }
    for (int m = 0; m < HG_LOG_NMODULES; ++m)
        if (found[m] >= 0)
            levels[m] = found[m];
    return true;
}

/* The process name, read once (it is formatted into lines outside the lock). */
static void read_pname(void)
{
    FILE *f = fopen("/proc/self/comm", "r");
    if (!f)
        return;
    char name[sizeof g_pname];
    if (fgets(name, sizeof name, f)) {
        name[strcspn(name, "\r\n")] = '\0';
        if (name[0])
            memcpy(g_pname, name, strlen(name) + 1);
    }
    fclose(f);
}

/* A fork while another thread writes a line must not leave the child's lock taken. */
static void before_fork(void)
{
    pthread_mutex_lock(&g_log_mu);
}

static void after_fork(void)
{
    pthread_mutex_unlock(&g_log_mu);
}

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void process_setup(void)
{
    read_pname();
    pthread_atfork(before_fork, after_fork, after_fork);
}

/* The log root per CANN's priority, "" when there is none. */
static void read_root(char *out, size_t cap)
{
    const char *s = getenv("ASCEND_PROCESS_LOG_PATH");
    if (s && *s) {
        snprintf(out, cap, "%s", s);
        return;
    }
    s = getenv("ASCEND_WORK_PATH");
    if (s && *s) {
        snprintf(out, cap, "%s/log", s);
        return;
    }
    const char *home = getenv("HOME");
    if (!home || !*home) {
        struct passwd pw, *found = NULL;
        char buf[1024];
        if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &found) == 0 && found && found->pw_dir)
            home = found->pw_dir;
    }
    if (home && *home)
        snprintf(out, cap, "%s/ascend/log", home);
    else
        out[0] = '\0';
}

void hg_log_configure(void)
{
    int levels[HG_LOG_NMODULES];
    const char *s = getenv("ASCEND_GLOBAL_LOG_LEVEL");
    int global = s ? level_value(s, strlen(s)) : -1;
    if (global < 0)
        global = HG_LOG_ERROR;
    for (int m = 0; m < HG_LOG_NMODULES; ++m)
        levels[m] = global;
    s = getenv("ASCEND_MODULE_LOG_LEVEL");
    if (s && *s)
        (void)parse_module_levels(s, levels); /* ignored as a whole when malformed */
    s = getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    bool to_stdout = s && strcmp(s, "1") == 0;
    char root[HG_LOG_PATH_CAP];
    read_root(root, sizeof root);

    pthread_once(&g_once, process_setup);
    pthread_mutex_lock(&g_log_mu);
    g_to_stdout = to_stdout;
    if (strcmp(root, g_root) != 0) {
        if (g_fd >= 0)
            close(g_fd);
        g_fd = -1;
        memcpy(g_root, root, sizeof root);
    }
    for (int m = 0; m < HG_LOG_NMODULES; ++m)
        __atomic_store_n(&hg_log_min[m], levels[m], __ATOMIC_RELAXED);
    __atomic_store_n(&g_configured, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_log_mu);
}

void hg_log_describe(char *buf, size_t n)
{
    if (!__atomic_load_n(&g_configured, __ATOMIC_ACQUIRE))
        hg_log_configure();
    pthread_mutex_lock(&g_log_mu);
    int a = __atomic_load_n(&hg_log_min[HG_LOG_ASCENDCL], __ATOMIC_RELAXED);
    int o = __atomic_load_n(&hg_log_min[HG_LOG_OP], __ATOMIC_RELAXED);
    int p = __atomic_load_n(&hg_log_min[HG_LOG_APP], __ATOMIC_RELAXED);
    const char *to = g_to_stdout ? "stdout" : g_root[0] ? g_root : "nowhere (no log directory)";
    const char *sub = !g_to_stdout && g_root[0] ? "/debug/plog" : "";
    snprintf(buf, n, "log levels ASCENDCL=%s OP=%s APP=%s, to %s%s", g_level_names[a], g_level_names[o],
             g_level_names[p], to, sub);
    pthread_mutex_unlock(&g_log_mu);
}

/* mkdir -p of path (modified in place and restored); true when it exists as a directory. */
static bool make_dirs(char *path)
{
    for (char *p = path + 1; *p; ++p) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(path, 0750);
        *p = '/';
        if (rc != 0 && errno != EEXIST)
            return false;
    }
    if (mkdir(path, 0750) != 0 && errno != EEXIST)
        return false;
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The plog file of this process, opened on first use.  Caller holds g_log_mu. */
static int log_fd_locked(void)
{
    pid_t pid = getpid();
    if (g_fd >= 0 && g_fd_pid == pid)
        return g_fd;
    if (g_fd >= 0 && g_fd_pid != pid) /* a forked child: the parent's file stays the parent's */
        close(g_fd);
    g_fd = -1;
    if (!g_root[0])
        return -1;
    char dir[HG_LOG_PATH_CAP];
    int n = snprintf(dir, sizeof dir, "%s/debug/plog", g_root);
    if (n < 0 || (size_t)n >= sizeof dir || !make_dirs(dir))
        return -1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    localtime_r(&ts.tv_sec, &tm);
    char path[HG_LOG_PATH_CAP + 64];
    n = snprintf(path, sizeof path, "%s/plog-%ld_%04d%02d%02d%02d%02d%02d%03ld.log", dir, (long)pid,
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                 ts.tv_nsec / 1000000L);
    if (n < 0 || (size_t)n >= sizeof path)
        return -1;
    g_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    g_fd_pid = pid;
    return g_fd;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

void hg_log_write(int module, int level, const char *file, int line, const char *func, const char *fmt, ...)
{
    if (module < 0 || module >= HG_LOG_NMODULES || level < HG_LOG_DEBUG || level > HG_LOG_ERROR || !fmt)
        return;
    if (!__atomic_load_n(&g_configured, __ATOMIC_ACQUIRE))
        hg_log_configure();
    if (!HG_LOG_ENABLED(module, level))
        return;
    int saved_errno = errno; /* callers may report errno after logging */
    char buf[HG_LOG_LINE_CAP];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    localtime_r(&ts.tv_sec, &tm);
    const char *base = file ? strrchr(file, '/') : NULL;
    base = base ? base + 1 : (file ? file : "?");
    int n = snprintf(buf, sizeof buf, "[%s] %s(%ld,%s):%04d-%02d-%02d-%02d:%02d:%02d.%03ld.%03ld [%s:%d]%ld ",
                     g_level_names[level], g_module_names[module], (long)getpid(), g_pname, tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L,
                     (ts.tv_nsec / 1000L) % 1000L, base, line, (long)syscall(SYS_gettid));
    size_t len = n > 0 ? (size_t)n : 0;
    if (func && len < sizeof buf) {
        n = snprintf(buf + len, sizeof buf - len, "%s: ", func);
        len += n > 0 ? (size_t)n : 0;
    }
    if (len < sizeof buf) {
        va_list ap;
        va_start(ap, fmt);
        n = vsnprintf(buf + len, sizeof buf - len, fmt, ap);
        va_end(ap);
        len += n > 0 ? (size_t)n : 0;
    }
    if (len >= sizeof buf - 1) { /* cut: mark it and keep room for the newline */
        len = sizeof buf - 5;
        memcpy(buf + len, "...", 3);
        len += 3;
    }
    for (size_t i = 0; i < len; ++i) /* one line per record */
        if (buf[i] == '\n' || buf[i] == '\r')
            buf[i] = ' ';
    buf[len++] = '\n';

    pthread_mutex_lock(&g_log_mu);
    int fd = g_to_stdout ? STDOUT_FILENO : log_fd_locked();
    if (fd >= 0)
        write_all(fd, buf, len);
    pthread_mutex_unlock(&g_log_mu);
    errno = saved_errno;
}
