/* The net engine: ranks on several hosts through the engine plugin of hg_net.h
 * (libhg_net_gloo.so, loaded from libhcomm.so's own folder).  The plugin moves bytes; every
 * reduction stays in libhccl (reduce-scatter by alltoallv, then all-gather), so results are
 * the same as over the other engines. */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_engines.h"
#include "hc_rdv.h"
#include "hg_net.h"

#define PLUGIN "libhg_net_gloo.so"

typedef struct hc_net {
    const hg_net_ops *ops;
    void *ctx;
} hc_net;

static hc_net *N(hc_comm *c) { return (hc_net *)c->eng; }

static HcclResult net_err(hc_comm *c, const char *what)
{
    hc_net *n = N(c);
    HG_LOG(HG_LOG_ASCENDCL, HG_LOG_ERROR, "hcomm", "rank %u of comm %s: %s over %s failed: %s", c->rank, c->name, what,
           n->ops->name, n->ops->last_error ? n->ops->last_error(n->ctx) : "?");
    return HCCL_E_NETWORK;
}

static HcclResult nt_barrier(hc_comm *c)
{
    return N(c)->ops->barrier(N(c)->ctx) == 0 ? HCCL_SUCCESS : net_err(c, "barrier");
}

static HcclResult nt_allgather(hc_comm *c, const void *send, void *recv, size_t bytes)
{
    return N(c)->ops->allgather(N(c)->ctx, send, recv, bytes) == 0 ? HCCL_SUCCESS : net_err(c, "allgather");
}

static HcclResult nt_alltoallv(hc_comm *c, const void *send, const size_t *scounts, const size_t *sdispls,
                               void *recv, const size_t *rcounts, const size_t *rdispls)
{
    /* the ranks' counts must pair up: exchange them first so a mismatch fails cleanly */
    const uint32_t n = c->nranks;
    uint64_t *mine = calloc(n, sizeof *mine), *all = malloc((size_t)n * n * sizeof *all);
    if (!mine || !all) {
        free(mine);
        free(all);
        return HCCL_E_MEMORY;
    }
    for (uint32_t q = 0; q < n; ++q)
        mine[q] = scounts[q];
    HcclResult r = nt_allgather(c, mine, all, n * sizeof *mine);
    int bad = 0;
    for (uint32_t q = 0; q < n && r == HCCL_SUCCESS; ++q)
        bad |= all[(size_t)q * n + c->rank] != rcounts[q];
    int any_bad = bad;
    if (r == HCCL_SUCCESS) {                    /* everyone learns whether anyone found a mismatch */
        int *flags = calloc(n, sizeof *flags);
        r = flags ? nt_allgather(c, &bad, flags, sizeof bad) : HCCL_E_MEMORY;
        for (uint32_t q = 0; flags && q < n; ++q)
            any_bad |= flags[q];
        free(flags);
    }
    free(mine);
    free(all);
    if (r != HCCL_SUCCESS)
        return r;
    if (any_bad)
        return HCCL_E_PARA;
    return N(c)->ops->alltoallv(N(c)->ctx, send, scounts, sdispls, recv, rcounts, rdispls) == 0
               ? HCCL_SUCCESS : net_err(c, "alltoallv");
}

static HcclResult nt_broadcast(hc_comm *c, void *buf, size_t bytes, uint32_t root)
{
    return N(c)->ops->broadcast(N(c)->ctx, buf, bytes, (int)root) == 0 ? HCCL_SUCCESS : net_err(c, "broadcast");
}

static HcclResult nt_send(hc_comm *c, const void *buf, size_t bytes, uint32_t peer)
{
    return N(c)->ops->send(N(c)->ctx, buf, bytes, (int)peer, 0) == 0 ? HCCL_SUCCESS : net_err(c, "send");
}

static HcclResult nt_recv(hc_comm *c, void *buf, size_t bytes, uint32_t peer)
{
    return N(c)->ops->recv(N(c)->ctx, buf, bytes, (int)peer, 0) == 0 ? HCCL_SUCCESS : net_err(c, "recv");
}

static HcclResult nt_meet(hc_comm *c, const hc_peer *mine, hc_peer *all)
{
    hc_desc *d = malloc(c->nranks * sizeof *d);
    if (!d)
        return HCCL_E_MEMORY;
    HcclResult r = nt_allgather(c, &mine->desc, d, sizeof *d);
    memset(all, 0, c->nranks * sizeof *all);
    for (uint32_t q = 0; q < c->nranks && r == HCCL_SUCCESS; ++q)
        all[q].desc = d[q];
    free(d);
    return r;
}

static void nt_close(hc_comm *c)
{
    hc_net *n = N(c);
    if (!n)
        return;
    if (n->ctx)
        n->ops->close(n->ctx);
    free(n);
    c->eng = NULL;
}

static const hc_engine hc_engine_net = {
    .name = "net",
    .direct = 0,
    .meet = nt_meet,
    .barrier = nt_barrier,
    .allgather = nt_allgather,
    .alltoallv = nt_alltoallv,
    .broadcast = nt_broadcast,
    .send = nt_send,
    .recv = nt_recv,
    .batch = NULL,              /* the plugin's sends do not wait for the receiver */
    .window = NULL,
    .win_bytes = 0,
    .close = nt_close,
};

/* The plugin's table, loaded once per process. */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static const hg_net_ops *g_ops;
static char g_why[PATH_MAX + 1024];

static void load_plugin(void)
{
    Dl_info info;
    char path[PATH_MAX];
    if (!dladdr((void *)&load_plugin, &info) || !info.dli_fname) {
        snprintf(g_why, sizeof g_why, "cannot tell which folder libhcomm.so was loaded from");
        return;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", info.dli_fname);
    snprintf(path, sizeof path, "%s/%s", dirname(dir), PLUGIN);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(g_why, sizeof g_why, "ranks on several hosts (or PYACL_HARDGRAD_HCCL_TRANSPORT=net) need the "
                 "Gloo engine plugin %s, which is not usable: %s.  Install Gloo (apt-get install libgloo-dev) and "
                 "reinstall pyacl_hardgrad (pip install .): the build makes the plugin when Gloo is found",
                 path, dlerror());
        return;
    }
    hg_net_ops_fn fn;
    void *sym = dlsym(h, "hg_net_gloo_ops");
    memcpy(&fn, &sym, sizeof fn);
    const hg_net_ops *ops = sym ? fn() : NULL;
    if (!ops || ops->abi_version != HG_NET_ABI_VERSION) {
        snprintf(g_why, sizeof g_why, "%s is not an engine plugin of this libhcomm (ABI version %d, expected %d): "
                 "reinstall pyacl_hardgrad", path, ops ? ops->abi_version : -1, HG_NET_ABI_VERSION);
        return;
    }
    g_ops = ops;
}

HcclResult hc_net_attach(hc_comm *c, const char *func, struct hc_store *store, const char *prefix, int timeout_ms)
{
    pthread_once(&g_once, load_plugin);
    if (!g_ops)
        return hc_fail(HCCL_E_NOT_SUPPORT, func, "%s", g_why);
    hc_net *n = calloc(1, sizeof *n);
    if (!n)
        return hc_fail(HCCL_E_MEMORY, func, "out of memory");
    hg_net_store st = {store, hc_store_set, hc_store_get};
    const char *ip = getenv("HCCL_IF_IP");
    char err[512] = "";
    n->ops = g_ops;
    n->ctx = g_ops->open((int)c->rank, (int)c->nranks, &st, prefix, ip ? ip : "", timeout_ms, err, sizeof err);
    if (!n->ctx) {
        free(n);
        return hc_fail(HCCL_E_NETWORK, func, "rank %u: the %s engine could not connect the ranks: %s", c->rank,
                       g_ops->name, err[0] ? err : "no reason given");
    }
    c->eng = n;
    c->engine = &hc_engine_net;
    return HCCL_SUCCESS;
}
