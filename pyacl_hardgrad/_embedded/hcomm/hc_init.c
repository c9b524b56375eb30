/* Communicator creation: from a root info (any mix of threads, processes and hosts), from a
 * list of devices of this process (HcclCommInitAll), from a rank table file. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc_engines.h"
#include "hc_rdv.h"

hc_comm *hc_comm_new(uint32_t rank, uint32_t nranks, int device)
{
    hc_comm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->magic = HC_COMM_MAGIC;
    c->rank = rank;
    c->nranks = nranks;
    c->device = device;
    atomic_init(&c->refs, 1);
    atomic_init(&c->async_error, HCCL_SUCCESS);
    c->exec_timeout_ms = hc_exec_timeout_ms();
    return c;
}

/* ------------------------------------------------------------------ inproc worlds by nonce */

typedef struct wentry {
    uint64_t key;
    uint32_t n, joined;
    hc_world *w;
    struct wentry *next;
} wentry;

static pthread_mutex_t g_w_mu = PTHREAD_MUTEX_INITIALIZER;
static wentry *g_worlds;

/* The world of rendezvous `key` (made by its first rank here); the entry goes once all joined. */
static hc_world *world_join(uint64_t key, uint32_t n)
{
    pthread_mutex_lock(&g_w_mu);
    wentry **pp = &g_worlds;
    while (*pp && (*pp)->key != key)
        pp = &(*pp)->next;
    wentry *e = *pp;
    if (!e) {
        e = calloc(1, sizeof *e);
        hc_world *w = e ? hc_world_new(n) : NULL;
        if (!w) {
            free(e);
            pthread_mutex_unlock(&g_w_mu);
            return NULL;
        }
        e->key = key;
        e->n = n;
        e->w = w;
        e->next = g_worlds;
        g_worlds = e;
        pp = &g_worlds;
    }
    hc_world *w = e->w;
    hc_world_ref(w);
    if (++e->joined == e->n) {
        *pp = e->next;
        hc_world_unref(w);      /* the entry's */
        free(e);
    }
    pthread_mutex_unlock(&g_w_mu);
    return w;
}

/* ------------------------------------------------------------------ configuration */

static HcclResult read_config(const HcclCommConfig *config, const char *func, hc_comm *c)
{
    if (!config)
        return HCCL_SUCCESS;
    struct {
        size_t size;
        uint32_t magic;
        uint32_t version;
    } h;
    memcpy(&h, config->reserved, sizeof h);
    if (h.magic != HCCL_COMM_CONFIG_MAGIC_WORD)
        return hc_fail(HCCL_E_PARA, func, "config was not initialised with HcclCommConfigInit (magic word 0x%x, "
                       "expected 0x%x)", h.magic, HCCL_COMM_CONFIG_MAGIC_WORD);
    if (h.size < offsetof(HcclCommConfig, hcclUdi))
        return hc_fail(HCCL_E_PARA, func, "config's size %zu is too small for an HcclCommConfig", h.size);
    if (config->hcclCommName[0])
        snprintf(c->name, sizeof c->name, "%.*s", (int)sizeof c->name - 1, config->hcclCommName);
    if (h.version >= 6 && h.size >= offsetof(HcclCommConfig, hcclAlgo) && config->hcclExecTimeOut > 0)
        c->exec_timeout_ms = config->hcclExecTimeOut > 2147483 ? 2147483000 : config->hcclExecTimeOut * 1000;
    if (config->hcclDeterministic != HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET && config->hcclDeterministic > 2)
        return hc_fail(HCCL_E_PARA, func, "config's hcclDeterministic is %u; it takes 0, 1 or 2",
                       config->hcclDeterministic);
    return HCCL_SUCCESS;
}

/* ------------------------------------------------------------------ root info */

typedef enum { T_AUTO, T_SHM, T_NET } transport;

static int transport_mode(const char *func, transport *t)
{
    const char *v = getenv("PYACL_HARDGRAD_HCCL_TRANSPORT");
    if (!v || !*v || strcmp(v, "auto") == 0)
        *t = T_AUTO;
    else if (strcmp(v, "shm") == 0)
        *t = T_SHM;
    else if (strcmp(v, "net") == 0)
        *t = T_NET;
    else {
        hc_fail(HCCL_E_PARA, func, "PYACL_HARDGRAD_HCCL_TRANSPORT=%s: choose auto, shm or net", v);
        return -1;
    }
    return 0;
}

HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                      const HcclCommConfig *config, HcclComm *comm)
{
    static const char *const F = "HcclCommInitRootInfo";
    if (!rootInfo)
        return hc_fail(HCCL_E_PTR, F, "rootInfo is NULL");
    if (!comm)
        return hc_fail(HCCL_E_PTR, F, "comm is NULL");
    if (nRanks == 0)
        return hc_fail(HCCL_E_PARA, F, "nRanks is 0");
    if (rank >= nRanks)
        return hc_fail(HCCL_E_PARA, F, "rank %u is out of range: nRanks is %u", rank, nRanks);
    transport t;
    if (transport_mode(F, &t) != 0)
        return HCCL_E_PARA;
    int device = hg_current_device();
    if (device < 0)
        return hc_fail(HCCL_E_RUNTIME, F, "the calling thread has no current device: call aclrtSetDevice first (the "
                       "rank runs on it)");
    hc_comm *c = hc_comm_new(rank, nRanks, device);
    if (!c)
        return hc_fail(HCCL_E_MEMORY, F, "out of memory");
    HcclResult r = read_config(config, F, c);
    if (r != HCCL_SUCCESS) {
        free(c);
        return r;
    }
    hc_member *m = NULL;
    hc_store *store = NULL;
    uint64_t nonce = 0;
    r = hc_rdv_join(rootInfo, rank, nRanks, device, F, &m, &store, &nonce);
    if (r != HCCL_SUCCESS) {
        free(c);
        return r;
    }
    if (!c->name[0])
        snprintf(c->name, sizeof c->name, "hccl_%016" PRIx64, nonce);
    int same_pid = 1, same_host = 1;
    for (uint32_t q = 0; q < nRanks; ++q) {
        same_pid &= m[q].pid == m[0].pid;
        same_host &= strcmp(m[q].host, m[0].host) == 0;
    }
    if (t == T_SHM && !same_host) {
        r = hc_fail(HCCL_E_PARA, F, "PYACL_HARDGRAD_HCCL_TRANSPORT=shm, but the ranks are on several hosts (rank 0 on %s, "
                    "this rank on %s)", m[0].host, m[rank].host);
    } else if (t == T_NET || (t == T_AUTO && !same_host)) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "hccl/%016" PRIx64 "/", nonce);
        r = hc_net_attach(c, F, store, prefix, hc_connect_timeout_ms());
    } else if (t == T_SHM || !same_pid) {
        r = hc_shm_attach(c, F, nonce, hc_connect_timeout_ms());
    } else {
        hc_world *w = world_join(nonce, nRanks);
        r = w ? hc_inproc_attach(c, w) : hc_fail(HCCL_E_MEMORY, F, "out of memory");
        if (w)
            hc_world_unref(w);
    }
    free(m);
    hc_store_close(store);
    if (r == HCCL_SUCCESS && hc_registry_add(c) != 0)
        r = hc_fail(HCCL_E_MEMORY, F, "out of memory");
    if (r != HCCL_SUCCESS) {
        if (c->engine && c->engine->close)
            c->engine->close(c);
        free(c);
        return r;
    }
    HG_LOG(HG_LOG_ASCENDCL, HG_LOG_INFO, F, "rank %u of %u on device %d joined comm %s (engine %s)", rank, nRanks,
           device, c->name, c->engine->name);
    *comm = c;
    return HCCL_SUCCESS;
}

HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank, HcclComm *comm)
{
    return HcclCommInitRootInfoConfig(nRanks, rootInfo, rank, NULL, comm);
}

/* ------------------------------------------------------------------ all ranks from one thread */

HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms)
{
    static const char *const F = "HcclCommInitAll";
    if (!devices)
        return hc_fail(HCCL_E_PTR, F, "devices is NULL");
    if (!comms)
        return hc_fail(HCCL_E_PTR, F, "comms is NULL");
    if (ndev == 0)
        return hc_fail(HCCL_E_PARA, F, "ndev is 0");
    uint32_t count = 0;
    if (aclrtGetDeviceCount(&count) != ACL_SUCCESS)
        return hc_fail(HCCL_E_RUNTIME, F, "cannot count the devices (aclInit first)");
    for (uint32_t i = 0; i < ndev; ++i) {
        if (devices[i] < 0 || (uint32_t)devices[i] >= count)
            return hc_fail(HCCL_E_PARA, F, "devices[%u] = %d is not a device (there are %u)", i, (int)devices[i],
                           count);
        for (uint32_t j = 0; j < i; ++j)
            if (devices[j] == devices[i])
                return hc_fail(HCCL_E_PARA, F, "devices[%u] and devices[%u] are both device %d: one rank per device",
                               j, i, (int)devices[i]);
    }
    hc_world *w = hc_world_new(ndev);
    if (!w)
        return hc_fail(HCCL_E_MEMORY, F, "out of memory");
    static atomic_uint_fast64_t serial;
    uint64_t id = atomic_fetch_add(&serial, 1);
    HcclResult r = HCCL_SUCCESS;
    uint32_t made = 0;
    for (; made < ndev; ++made) {
        hc_comm *c = hc_comm_new(made, ndev, devices[made]);
        if (!c || hc_inproc_attach(c, w) != HCCL_SUCCESS) {
            free(c);
            r = hc_fail(HCCL_E_MEMORY, F, "out of memory");
            break;
        }
        snprintf(c->name, sizeof c->name, "hccl_all_%d_%" PRIu64, (int)getpid(), id);
        comms[made] = c;
    }
    if (r == HCCL_SUCCESS) {
        for (uint32_t i = 0; i < ndev; ++i) {
            if (hc_registry_add((hc_comm *)comms[i]) != 0) {
                r = hc_fail(HCCL_E_MEMORY, F, "out of memory");
                for (uint32_t j = 0; j < i; ++j)
                    HcclCommDestroy(comms[j]);
                for (uint32_t j = i; j < ndev; ++j)
                    hc_comm_put((hc_comm *)comms[j]);
                break;
            }
        }
    } else {
        for (uint32_t j = 0; j < made; ++j)
            hc_comm_put((hc_comm *)comms[j]);
    }
    hc_world_unref(w);
    if (r != HCCL_SUCCESS) {
        for (uint32_t j = 0; j < ndev; ++j)
            comms[j] = NULL;
    }
    return r;
}
