/* HcclCommInitClusterInfo: communicators from a rank table file (HCCL's JSON format: status,
 * version, server_count, server_list[{server_id, device[{device_id, device_ip, rank_id}]}]).
 * The ranks of one server (this host) meet through a shared memory segment named after the
 * file's contents, so threads and processes alike find each other without a root info. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_engines.h"

/* ------------------------------------------------------------------ a small JSON reader */

typedef struct jp {
    const char *start, *s, *end;
    char err[160];
} jp;

typedef struct rt_dev {
    long device_id, rank_id;
} rt_dev;

typedef struct rt {
    char status[64];
    int servers;          /* entries of server_list */
    rt_dev *devs;
    size_t ndev, cap;
} rt;

static void ws(jp *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
        p->s++;
}

static int fail(jp *p, const char *what)
{
    if (!p->err[0])
        snprintf(p->err, sizeof p->err, "%s at byte %td", what, p->s - p->start);
    return -1;
}

/* A string into out (truncated to cap); escapes kept simple (\" \\ \/ and letters). */
static int str(jp *p, char *out, size_t cap)
{
    ws(p);
    if (p->s >= p->end || *p->s != '"')
        return fail(p, "expected a string");
    p->s++;
    size_t n = 0;
    while (p->s < p->end && *p->s != '"') {
        char ch = *p->s++;
        if (ch == '\\' && p->s < p->end)
            ch = *p->s++;
        if (n + 1 < cap)
            out[n++] = ch;
    }
    if (p->s >= p->end)
        return fail(p, "unterminated string");
    p->s++;
    if (cap)
        out[n] = '\0';
    return 0;
}

static int value(jp *p, rt *t, const char *key, int depth, rt_dev *dev);

/* An integer given as a number or a string of digits. */
static int intval(jp *p, long *v)
{
    ws(p);
    char buf[32];
    if (p->s < p->end && *p->s == '"') {
        if (str(p, buf, sizeof buf) != 0)
            return -1;
    } else {
        size_t n = 0;
        while (p->s < p->end && n + 1 < sizeof buf && (*p->s == '-' || (*p->s >= '0' && *p->s <= '9')))
            buf[n++] = *p->s++;
        buf[n] = '\0';
    }
    char *e = NULL;
    *v = strtol(buf, &e, 10);
    if (!buf[0] || *e)
        return fail(p, "expected an integer");
    return 0;
}

static int object(jp *p, rt *t, int depth, rt_dev *dev)
{
    p->s++;   /* { */
    ws(p);
    if (p->s < p->end && *p->s == '}') {
        p->s++;
        return 0;
    }
    for (;;) {
        char key[64];
        if (str(p, key, sizeof key) != 0)
            return -1;
        ws(p);
        if (p->s >= p->end || *p->s != ':')
            return fail(p, "expected ':'");
        p->s++;
        if (value(p, t, key, depth + 1, dev) != 0)
            return -1;
        ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == '}') {
            p->s++;
            return 0;
        }
        return fail(p, "expected ',' or '}'");
    }
}

static int value(jp *p, rt *t, const char *key, int depth, rt_dev *dev)
{
    ws(p);
    if (p->s >= p->end)
        return fail(p, "unexpected end");
    if (depth > 16)
        return fail(p, "nested too deep");
    char c = *p->s;
    if (dev && (strcmp(key, "device_id") == 0 || strcmp(key, "rank_id") == 0))
        return intval(p, strcmp(key, "device_id") == 0 ? &dev->device_id : &dev->rank_id);
    if (c == '{') {
        if (strcmp(key, "@device") == 0) {     /* an entry of a device list */
            rt_dev d = {-1, -1};
            if (object(p, t, depth, &d) != 0)
                return -1;
            if (t->ndev == t->cap) {
                size_t cap = t->cap ? 2 * t->cap : 8;
                rt_dev *nd = realloc(t->devs, cap * sizeof *nd);
                if (!nd)
                    return fail(p, "out of memory");
                t->devs = nd;
                t->cap = cap;
            }
            t->devs[t->ndev++] = d;
            return 0;
        }
        if (strcmp(key, "@server_list") == 0)
            t->servers++;
        return object(p, t, depth, NULL);
    }
    if (c == '[') {
        p->s++;
        char item[64];
        snprintf(item, sizeof item, "@%s", key);
        ws(p);
        if (p->s < p->end && *p->s == ']') {
            p->s++;
            return 0;
        }
        for (;;) {
            if (value(p, t, item, depth + 1, NULL) != 0)
                return -1;
            ws(p);
            if (p->s < p->end && *p->s == ',') {
                p->s++;
                continue;
            }
            if (p->s < p->end && *p->s == ']') {
                p->s++;
                return 0;
            }
            return fail(p, "expected ',' or ']'");
        }
    }
    if (c == '"') {
        char buf[64];
        if (str(p, buf, sizeof buf) != 0)
            return -1;
        if (depth == 1 && strcmp(key, "status") == 0)
            snprintf(t->status, sizeof t->status, "%s", buf);
        return 0;
    }
    /* number, true, false, null */
    while (p->s < p->end && *p->s != ',' && *p->s != '}' && *p->s != ']')
        p->s++;
    return 0;
}

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; ++i) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank, HcclCommConfig *config,
                                         HcclComm *comm)
{
    static const char *const F = "HcclCommInitClusterInfo";
    if (!clusterInfo)
        return hc_fail(HCCL_E_PTR, F, "clusterInfo is NULL");
    if (!comm)
        return hc_fail(HCCL_E_PTR, F, "comm is NULL");
    FILE *f = fopen(clusterInfo, "rb");
    if (!f)
        return hc_fail(HCCL_E_OPEN_FILE_FAILURE, F, "cannot open the rank table %s: %s", clusterInfo, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 8192;
            char *nt = realloc(text, cap);
            if (!nt) {
                free(text);
                fclose(f);
                return hc_fail(HCCL_E_MEMORY, F, "out of memory");
            }
            text = nt;
        }
        size_t k = fread(text + len, 1, 4096, f);
        len += k;
        if (k == 0)
            break;
    }
    fclose(f);
    text[len] = '\0';
    jp p = {text, text, text + len, ""};
    rt t;
    memset(&t, 0, sizeof t);
    ws(&p);
    int ok = p.s < p.end && *p.s == '{' ? object(&p, &t, 0, NULL) : fail(&p, "expected a JSON object");
    uint64_t key = fnv(text, len);
    free(text);
    HcclResult r = HCCL_SUCCESS;
    long device = -1;
    uint32_t n = (uint32_t)t.ndev;
    if (ok != 0)
        r = hc_fail(HCCL_E_PARA, F, "rank table %s is not valid JSON: %s", clusterInfo, p.err);
    else if (strcmp(t.status, "completed") != 0)
        r = hc_fail(HCCL_E_PARA, F, "rank table %s: status is \"%s\", not \"completed\"", clusterInfo, t.status);
    else if (t.servers != 1)
        r = hc_fail(HCCL_E_NOT_SUPPORT, F, "rank table %s lists %d servers: rank tables serve the ranks of this "
                    "host only (for several hosts use HcclGetRootInfo / HcclCommInitRootInfo)", clusterInfo,
                    t.servers);
    else if (n == 0)
        r = hc_fail(HCCL_E_PARA, F, "rank table %s lists no device", clusterInfo);
    for (uint32_t i = 0; i < n && r == HCCL_SUCCESS; ++i) {
        if (t.devs[i].rank_id < 0 || t.devs[i].rank_id >= (long)n || t.devs[i].device_id < 0)
            r = hc_fail(HCCL_E_PARA, F, "rank table %s: device entry %u has rank_id %ld and device_id %ld (rank_id "
                        "must be in [0, %u), device_id >= 0)", clusterInfo, i, t.devs[i].rank_id,
                        t.devs[i].device_id, n);
        for (uint32_t j = 0; j < i && r == HCCL_SUCCESS; ++j)
            if (t.devs[j].rank_id == t.devs[i].rank_id)
                r = hc_fail(HCCL_E_PARA, F, "rank table %s: rank_id %ld appears twice", clusterInfo, t.devs[i].rank_id);
        if ((uint32_t)t.devs[i].rank_id == rank)
            device = t.devs[i].device_id;
    }
    free(t.devs);
    if (r == HCCL_SUCCESS && rank >= n)
        r = hc_fail(HCCL_E_PARA, F, "rank %u is out of range: rank table %s has %u ranks", rank, clusterInfo, n);
    if (r != HCCL_SUCCESS)
        return r;
    hc_comm *c = hc_comm_new(rank, n, (int)device);
    if (!c)
        return hc_fail(HCCL_E_MEMORY, F, "out of memory");
    if (config && config->hcclCommName[0])
        snprintf(c->name, sizeof c->name, "%.*s", (int)sizeof c->name - 1, config->hcclCommName);
    else
        snprintf(c->name, sizeof c->name, "hccl_ranktable_%016" PRIx64, key);
    r = hc_shm_attach(c, F, key ^ 0x52414e4b5441424cull, hc_connect_timeout_ms());
    if (r == HCCL_SUCCESS && hc_registry_add(c) != 0)
        r = hc_fail(HCCL_E_MEMORY, F, "out of memory");
    if (r != HCCL_SUCCESS) {
        if (c->engine && c->engine->close)
            c->engine->close(c);
        free(c);
        return r;
    }
    *comm = c;
    return HCCL_SUCCESS;
}

HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm)
{
    return HcclCommInitClusterInfoConfig(clusterInfo, rank, NULL, comm);
}
