/*
 * pyacl_hardgrad embedded runtime: the cross-host collective engine's ABI.
 *
 * libhcomm.so moves data between ranks of one process (their memory is shared) and between
 * processes of one host (POSIX shared memory) itself.  Ranks on several hosts go through an
 * engine plugin, a shared library in the same lib64/ folder that libhcomm.so loads with dlopen
 * the first time a communicator needs it:
 *
 *     libhg_net_gloo.so   Gloo (TCP), built when Gloo's headers and library are found
 *
 * The plugin exports one function, hg_net_gloo_ops(), returning a table of the calls below.
 * Every call is a plain byte mover: reductions, dtypes and rank order are libhccl's business,
 * so results are the same over every transport.  All calls of one engine context are made from
 * one thread at a time (the communicator serialises them); every rank makes the same calls in
 * the same order.  Errors: a call returns 0 on success, else nonzero with the reason readable
 * through last_error(ctx) (or, for open, written into err).
 *
 * Rendezvous: the ranks meet through the key-value store libhcomm serves for the communicator's
 * root info (an address, a port and a nonce); the plugin reaches it through hg_net_store and
 * must put every key under the prefix it is given.
 */
#ifndef PYACL_HARDGRAD_HCOMM_HG_NET_H_
#define PYACL_HARDGRAD_HCOMM_HG_NET_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HG_NET_ABI_VERSION 1

/* The rendezvous store, served by libhcomm.  Both calls are thread-safe. */
typedef struct hg_net_store {
    void *ctx;
    /* Set key to the len bytes at val (a later set of the same key replaces it).  0 or -1. */
    int (*set)(void *ctx, const char *key, const void *val, size_t len);
    /* Wait up to timeout_ms (< 0: for ever) for key, then return a malloc'd copy of its value
     * in *val (the caller frees it) and its length in *len.  0, or -1 (timed out, or the store
     * is gone). */
    int (*get)(void *ctx, const char *key, void **val, size_t *len, int timeout_ms);
} hg_net_store;

typedef struct hg_net_ops {
    int abi_version;            /* HG_NET_ABI_VERSION */
    const char *name;           /* "gloo" */
    /* Join rank `rank` of `nranks`: meet the others through store (keys under prefix), connect
     * to all of them, binding to the local address local_addr ("" or NULL: the engine's choice).
     * Blocks until every rank has joined or timeout_ms passed.  NULL on failure, with the
     * reason in err (errlen bytes, NUL-terminated). */
    void *(*open)(int rank, int nranks, const hg_net_store *store, const char *prefix,
                  const char *local_addr, int timeout_ms, char *err, size_t errlen);
    /* Everyone reached this point. */
    int (*barrier)(void *ctx);
    /* recv[r * bytes .. (r + 1) * bytes) = rank r's send[0 .. bytes), for every rank r. */
    int (*allgather)(void *ctx, const void *send, void *recv, size_t bytes);
    /* Rank r's block send[sdispls[q] .. + scounts[q]) lands in rank q's
     * recv[rdispls[r] .. + rcounts[r]); counts and displacements in bytes, one per rank. */
    int (*alltoallv)(void *ctx, const void *send, const size_t *scounts, const size_t *sdispls,
                     void *recv, const size_t *rcounts, const size_t *rdispls);
    /* buf's bytes on rank root land in buf on every rank. */
    int (*broadcast)(void *ctx, void *buf, size_t bytes, int root);
    /* Point to point: a send and the recv that names the same peers and tag match, in order.
     * A send may return before the peer received (it is buffered or in flight), so two ranks
     * may send to each other before they receive. */
    int (*send)(void *ctx, const void *buf, size_t bytes, int peer, uint64_t tag);
    int (*recv)(void *ctx, void *buf, size_t bytes, int peer, uint64_t tag);
    /* Why the last call on ctx failed. */
    const char *(*last_error)(void *ctx);
    void (*close)(void *ctx);
} hg_net_ops;

typedef const hg_net_ops *(*hg_net_ops_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* PYACL_HARDGRAD_HCOMM_HG_NET_H_ */
