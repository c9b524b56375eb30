/* The rendezvous behind HcclGetRootInfo / HcclCommInitRootInfo (private to libhcomm).
 *
 * HcclGetRootInfo starts a server thread listening on TCP and writes its address, port and a
 * fresh random nonce into the root info.  Every rank connects, says who it is (nonce, rank,
 * nranks, pid, host identity, device) and gets the membership back once all nranks joined.
 * The connection then serves the key-value store of the net engine (hg_net_store) until the
 * rank says it is set up; the server stops when every rank did (or at the timeout). */
#ifndef PYACL_HARDGRAD_HCOMM_HC_RDV_H_
#define PYACL_HARDGRAD_HCOMM_HC_RDV_H_

#include <pthread.h>

#include "hc_internal.h"

#define HC_HOST_ID_MAX 160

typedef struct hc_member {
    uint32_t pid;
    int32_t device;
    char host[HC_HOST_ID_MAX];   /* hostname/boot_id */
} hc_member;

typedef struct hc_store {
    int fd;
    pthread_mutex_t mu;
} hc_store;

/* This host's identity (hostname + kernel boot id). */
void hc_host_id(char *out, size_t cap);

/* Join the rendezvous of rootInfo as rank of nranks; blocks until every rank joined or the
 * connect timeout.  On success *members (nranks entries, malloc'd) and *store (the open
 * connection) are set and *nonce holds the rendezvous' nonce. */
HcclResult hc_rdv_join(const HcclRootInfo *rootInfo, uint32_t rank, uint32_t nranks, int device, const char *func,
                       hc_member **members, hc_store **store, uint64_t *nonce);
/* Tell the server this rank is set up and close the connection. */
void hc_store_close(hc_store *s);
int hc_store_set(void *ctx, const char *key, const void *val, size_t len);
int hc_store_get(void *ctx, const char *key, void **val, size_t *len, int timeout_ms);

#endif /* PYACL_HARDGRAD_HCOMM_HC_RDV_H_ */
