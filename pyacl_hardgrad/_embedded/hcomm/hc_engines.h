/* The engines of libhcomm and how a communicator gets one (private to libhcomm). */
#ifndef PYACL_HARDGRAD_HCOMM_HC_ENGINES_H_
#define PYACL_HARDGRAD_HCOMM_HC_ENGINES_H_

#include "hc_internal.h"

/* inproc: a world shared by the ranks of one process (reference counted). */
typedef struct hc_world hc_world;
hc_world *hc_world_new(uint32_t n);
void hc_world_ref(hc_world *w);
void hc_world_unref(hc_world *w);
HcclResult hc_inproc_attach(hc_comm *c, hc_world *w);
extern const hc_engine hc_engine_inproc;

/* shm: the segment named after the rendezvous nonce, for ranks of one host. */
HcclResult hc_shm_attach(hc_comm *c, const char *func, uint64_t nonce, int timeout_ms);

/* net: the engine plugin (hg_net.h) meeting through the rendezvous store. */
struct hc_store;
HcclResult hc_net_attach(hc_comm *c, const char *func, struct hc_store *store, const char *prefix, int timeout_ms);

/* New communicator (refs 1, in no registry yet). */
hc_comm *hc_comm_new(uint32_t rank, uint32_t nranks, int device);
/* Put c in the registry of live handles (HcclComm = c). */
int hc_registry_add(hc_comm *c);

#endif /* PYACL_HARDGRAD_HCOMM_HC_ENGINES_H_ */
