/*
 * One rank of a test of the cross-host engine plugin (hg_net.h), run as N processes on loopback.
 *
 *   net_gloo_driver PLUGIN STORE_DIR RANK NRANKS MODE [TIMEOUT_MS]
 *
 * The rendezvous store is a folder: set writes a file (atomically, by rename), get polls for it
 * until the timeout.  Modes:
 *   suite   every call, checked byte for byte, sizes 0 .. 64 MiB (bad arguments first)
 *   open    open and close only (a rank that never comes: run fewer processes than NRANKS)
 *   dies    rank 1 exits without closing after open; rank 0's recv from it must fail, not hang
 *   dies_sending  rank 1 exits while 256 MiB from rank 0 are on their way to it; rank 0 must
 *           not die of SIGPIPE, its next call fails and close does not wait for the lost send
 *   unmatched  rank 0 receives what rank 1 never sends, rank 1 sends what rank 0 never receives:
 *           both fail or return within the timeout instead of hanging
 *   bench   alltoallv + allgather of 64 MiB (an all-reduce's data movement), timed
 * Prints "ok ..." lines; on a failed check prints "FAIL ..." and exits 1.
 */
#define _POSIX_C_SOURCE 200809L
#include "hg_net.h"

#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const hg_net_ops *ops;
static void *net;
static int me, n;

static void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stdout, "FAIL rank %d: ", me);
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    fflush(stdout);
    exit(1);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- the folder store ---- */

static char store_dir[512];

static void key_path(const char *key, char *out, size_t cap) {
    size_t at = (size_t)snprintf(out, cap, "%s/k", store_dir);
    for (const unsigned char *p = (const unsigned char *)key; *p && at + 3 < cap; p++) {
        at += (size_t)snprintf(out + at, cap - at, "%02x", *p);
    }
}

static int store_set(void *ctx, const char *key, const void *val, size_t len) {
    (void)ctx;
    char path[1024], tmp[1100];
    key_path(key, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (f == NULL) {
        return -1;
    }
    int ok = fwrite(val, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    return ok && rename(tmp, path) == 0 ? 0 : -1;
}

static int store_get(void *ctx, const char *key, void **val, size_t *len, int timeout_ms) {
    (void)ctx;
    char path[1024];
    key_path(key, path, sizeof path);
    double deadline = now_s() + timeout_ms / 1000.0;
    for (;;) {
        FILE *f = fopen(path, "rb");
        if (f != NULL) {
            struct stat st;
            if (fstat(fileno(f), &st) != 0) {
                fclose(f);
                return -1;
            }
            size_t size = (size_t)st.st_size;
            char *buf = malloc(size ? size : 1);
            if (buf == NULL || fread(buf, 1, size, f) != size) {
                free(buf);
                fclose(f);
                return -1;
            }
            fclose(f);
            *val = buf;
            *len = size;
            return 0;
        }
        if (timeout_ms >= 0 && now_s() >= deadline) {
            return -1;
        }
        sleep_ms(2);
    }
}

static const hg_net_store store = {NULL, store_set, store_get};

/* ---- data patterns ---- */

static uint8_t pat(unsigned op, unsigned from, unsigned to, size_t i) {
    uint32_t x = (uint32_t)i * 2654435761u;
    return (uint8_t)((x >> 11) ^ (uint32_t)(i >> 8) ^ (op * 37u + from * 11u + to * 5u));
}

static void fill(uint8_t *p, size_t bytes, unsigned op, unsigned from, unsigned to) {
    for (size_t i = 0; i < bytes; i++) {
        p[i] = pat(op, from, to, i);
    }
}

static void expect(const uint8_t *p, size_t bytes, unsigned op, unsigned from, unsigned to, const char *what) {
    for (size_t i = 0; i < bytes; i++) {
        if (p[i] != pat(op, from, to, i)) {
            fail("%s: byte %zu of %zu from rank %u is %u, expected %u", what, i, bytes, from, p[i],
                 pat(op, from, to, i));
        }
    }
}

static void expect_untouched(const uint8_t *p, size_t bytes, uint8_t v, const char *what) {
    for (size_t i = 0; i < bytes; i++) {
        if (p[i] != v) {
            fail("%s: byte %zu outside every block was overwritten (%u)", what, i, p[i]);
        }
    }
}

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fail("out of memory (%zu bytes)", bytes);
    }
    return p;
}

static void call_ok(int rc, const char *what) {
    if (rc != 0) {
        fail("%s failed: %s", what, ops->last_error(net));
    }
}

/* A bad argument: the call fails, naming it, and the context stays usable. */
static void call_refused(int rc, const char *what, const char *needle) {
    if (rc == 0) {
        fail("%s was accepted", what);
    }
    const char *msg = ops->last_error(net);
    if (strstr(msg, needle) == NULL) {
        fail("%s: message '%s' does not name '%s'", what, msg, needle);
    }
    printf("ok refused %s: %s\n", what, msg);
}

/* ---- checks ---- */

static void check_bad_arguments(void) {
    uint8_t b[16] = {0};
    size_t counts[64] = {0}, displs[64] = {0};
    call_refused(ops->send(net, b, 4, n, 1), "send to peer = nranks", "peer");
    call_refused(ops->send(net, b, 4, -1, 1), "send to peer = -1", "peer");
    call_refused(ops->recv(net, b, 4, me, 1), "recv from this rank", "peer");
    call_refused(ops->send(net, b, 4, (me + 1) % n, (uint64_t)1 << 56), "send with tag 2^56", "tag");
    call_refused(ops->send(net, NULL, 4, (me + 1) % n, 1), "send of NULL", "buf");
    call_refused(ops->broadcast(net, b, 4, n), "broadcast from root = nranks", "root");
    call_refused(ops->allgather(net, NULL, b, 4), "allgather of NULL", "send");
    counts[me] = 1;
    call_refused(ops->alltoallv(net, b, counts, displs, b + 8, (size_t[64]){0}, displs),
                 "alltoallv with scounts[me] != rcounts[me]", "rcounts");
    call_refused(ops->alltoallv(net, b, NULL, displs, b, counts, displs), "alltoallv without scounts", "scounts");
}

static void check_broadcast(size_t bytes, unsigned op) {
    uint8_t *buf = xmalloc(bytes);
    for (int root = 0; root < n; root++) {
        if (me == root) {
            fill(buf, bytes, op, (unsigned)root, 0);
        } else {
            memset(buf, 0xEE, bytes);
        }
        call_ok(ops->broadcast(net, buf, bytes, root), "broadcast");
        expect(buf, bytes, op, (unsigned)root, 0, "broadcast");
    }
    free(buf);
}

static void check_allgather(size_t bytes, unsigned op, int in_place) {
    uint8_t *recv = xmalloc(bytes * (size_t)n);
    memset(recv, 0xEE, bytes * (size_t)n);
    uint8_t *send = in_place ? recv + (size_t)me * bytes : xmalloc(bytes);
    fill(send, bytes, op, (unsigned)me, 0);
    call_ok(ops->allgather(net, send, recv, bytes), in_place ? "allgather in place" : "allgather");
    for (int r = 0; r < n; r++) {
        expect(recv + (size_t)r * bytes, bytes, op, (unsigned)r, 0, in_place ? "allgather in place" : "allgather");
    }
    if (!in_place) {
        free(send);
    }
    free(recv);
}

/* Bytes rank `from` sends to rank `to`: uneven, zero for about a third of the pairs. */
static size_t a2a_count(int from, int to, size_t scale) {
    if ((from + 2 * to) % 3 == 0) {
        return 0;
    }
    return scale + (size_t)(from * 3 + to);
}

/* Odd ranks lay their blocks out in reverse rank order with 5-byte gaps (free displacements),
 * even ranks back to back (the displacements are the running sums). */
static size_t a2a_layout(const size_t *counts, size_t *displs) {
    size_t at = 0;
    if (me % 2 == 0) {
        for (int q = 0; q < n; q++) {
            displs[q] = at;
            at += counts[q];
        }
        return at;
    }
    for (int q = n - 1; q >= 0; q--) {
        at += 5;
        displs[q] = at;
        at += counts[q];
    }
    return at + 5;
}

static void check_alltoallv(size_t scale, unsigned op) {
    size_t sc[64], sd[64], rc[64], rd[64];
    for (int q = 0; q < n; q++) {
        sc[q] = a2a_count(me, q, scale);
        rc[q] = a2a_count(q, me, scale);
    }
    size_t stotal = a2a_layout(sc, sd), rtotal = a2a_layout(rc, rd);
    uint8_t *send = xmalloc(stotal), *recv = xmalloc(rtotal);
    memset(send, 0x5A, stotal);
    memset(recv, 0xEE, rtotal);
    for (int q = 0; q < n; q++) {
        fill(send + sd[q], sc[q], op, (unsigned)me, (unsigned)q);
    }
    call_ok(ops->alltoallv(net, send, sc, sd, recv, rc, rd), "alltoallv");
    size_t at = 0;
    for (int q = 0; q < n; q++) {
        expect(recv + rd[q], rc[q], op, (unsigned)q, (unsigned)me, "alltoallv");
    }
    /* The gaps between the blocks are left alone. */
    if (me % 2 == 1) {
        for (int q = n - 1; q >= 0; q--) {
            expect_untouched(recv + at, 5, 0xEE, "alltoallv gap");
            at += 5 + rc[q];
        }
        expect_untouched(recv + at, 5, 0xEE, "alltoallv gap");
    }
    free(send);
    free(recv);
}

/* Every rank sends to every other one before receiving anything, and overwrites its source
 * buffers as soon as send returned (the engine keeps its own copy). */
static void check_send_recv(size_t bytes, unsigned op, uint64_t tag) {
    uint8_t *src = xmalloc(bytes), *dst = xmalloc(bytes);
    for (int q = 0; q < n; q++) {
        if (q == me) {
            continue;
        }
        fill(src, bytes, op, (unsigned)me, (unsigned)q);
        call_ok(ops->send(net, src, bytes, q, tag), "send");
        memset(src, 0xAB, bytes);
    }
    for (int i = 1; i < n; i++) {
        int q = (me + n - i) % n;
        memset(dst, 0xEE, bytes);
        call_ok(ops->recv(net, dst, bytes, q, tag), "recv");
        expect(dst, bytes, op, (unsigned)q, (unsigned)me, "send/recv");
    }
    free(src);
    free(dst);
}

/* Tags select the message, and messages of one tag arrive in order: pairs (0,1), (2,3), ... send
 * tags 5, 6, 5 to each other and receive tag 6 first. */
static void check_tag_order(void) {
    int peer = me ^ 1;
    if (peer >= n) {
        return;
    }
    uint8_t a[100], b[100], c[100];
    fill(a, sizeof a, 201, (unsigned)me, (unsigned)peer);
    fill(b, sizeof b, 202, (unsigned)me, (unsigned)peer);
    fill(c, sizeof c, 203, (unsigned)me, (unsigned)peer);
    call_ok(ops->send(net, a, sizeof a, peer, 5), "send tag 5");
    call_ok(ops->send(net, b, sizeof b, peer, 6), "send tag 6");
    call_ok(ops->send(net, c, sizeof c, peer, 5), "send tag 5 again");
    call_ok(ops->recv(net, b, sizeof b, peer, 6), "recv tag 6");
    expect(b, sizeof b, 202, (unsigned)peer, (unsigned)me, "tag 6");
    call_ok(ops->recv(net, a, sizeof a, peer, 5), "recv tag 5");
    expect(a, sizeof a, 201, (unsigned)peer, (unsigned)me, "first tag 5");
    call_ok(ops->recv(net, c, sizeof c, peer, 5), "recv tag 5 again");
    expect(c, sizeof c, 203, (unsigned)peer, (unsigned)me, "second tag 5");
}

/* A recv of another size than the message refuses it (whether more or fewer bytes came),
 * drops it, and the next message of the tag is received intact. */
static void check_size_mismatch(void) {
    int peer = me ^ 1;
    if (peer >= n) {
        return;
    }
    uint8_t a[100], b[50], c[30], r[60];
    fill(a, sizeof a, 211, (unsigned)me, (unsigned)peer);
    fill(b, sizeof b, 212, (unsigned)me, (unsigned)peer);
    fill(c, sizeof c, 213, (unsigned)me, (unsigned)peer);
    call_ok(ops->send(net, a, sizeof a, peer, 7), "send 100 bytes");
    call_ok(ops->send(net, b, sizeof b, peer, 7), "send 50 bytes");
    call_ok(ops->send(net, c, sizeof c, peer, 7), "send 30 bytes");
    call_refused(ops->recv(net, r, sizeof r, peer, 7), "recv of 60 bytes when 100 were sent", "sent 100 bytes");
    call_refused(ops->recv(net, r, sizeof r, peer, 7), "recv of 60 bytes when 50 were sent", "sent 50 bytes");
    call_ok(ops->recv(net, r, sizeof c, peer, 7), "recv 30 bytes");
    expect(r, sizeof c, 213, (unsigned)peer, (unsigned)me, "message after two refused ones");
}

/* No rank leaves the barrier before every rank reached it: each one announces its arrival in
 * the store (late ranks later), and after the barrier all announcements are there. */
static void check_barrier(int round) {
    char key[64];
    sleep_ms(30L * me);
    snprintf(key, sizeof key, "arrived/%d/%d", round, me);
    if (store_set(NULL, key, "x", 1) != 0) {
        fail("store set %s", key);
    }
    call_ok(ops->barrier(net), "barrier");
    for (int r = 0; r < n; r++) {
        void *v;
        size_t len;
        snprintf(key, sizeof key, "arrived/%d/%d", round, r);
        if (store_get(NULL, key, &v, &len, 0) != 0) {
            fail("left the barrier before rank %d reached it", r);
        }
        free(v);
    }
}

static void run_suite(void) {
    static const size_t sizes[] = {0, 1, 7, 4096, 65536 + 3, 1 << 20, (size_t)64 << 20};
    check_bad_arguments();
    check_barrier(0);
    check_tag_order();
    check_size_mismatch();
    unsigned op = 1;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t s = sizes[k];
        double t0 = now_s();
        check_broadcast(s, op++);
        /* allgather: the output is s bytes for the large sizes */
        check_allgather(s >= ((size_t)1 << 20) ? s / (size_t)n : s, op++, 0);
        check_allgather(s >= ((size_t)1 << 20) ? s / (size_t)n : s, op++, 1);
        check_alltoallv(s / (size_t)n, op++);
        check_send_recv(s, op++, 100 + k);
        check_barrier((int)k + 1);
        printf("ok size %zu: broadcast from every root, allgather (and in place), alltoallv, send/recv, "
               "barrier (%.3f s)\n", s, now_s() - t0);
        fflush(stdout);
    }
}

static void *recv_big(void *b) {
    ops->recv(net, b, (size_t)256 << 20, 0, 3);
    return NULL;
}

static void run_bench(void) {
    const size_t total = (size_t)64 << 20, block = total / (size_t)n;
    size_t c[64], d[64];
    for (int q = 0; q < n; q++) {
        c[q] = block;
        d[q] = (size_t)q * block;
    }
    uint8_t *a = xmalloc(total), *b = xmalloc(total), *g = xmalloc(total);
    memset(a, 1, total);
    double best = 1e30, sum = 0;
    const int iters = 5;
    for (int it = -1; it < iters; it++) {
        call_ok(ops->barrier(net), "barrier");
        double t0 = now_s();
        call_ok(ops->alltoallv(net, a, c, d, b, c, d), "alltoallv");
        call_ok(ops->allgather(net, b + (size_t)me * block, g, block), "allgather");
        double t = now_s() - t0;
        if (it >= 0) {
            sum += t;
            best = t < best ? t : best;
        }
    }
    double mean = sum / iters;
    double alg = (double)total / mean / 1e9, bus = alg * 2.0 * (n - 1) / n;
    printf("ok bench %d ranks, %zu bytes: mean %.1f ms, best %.1f ms, algbw %.2f GB/s, busbw %.2f GB/s\n", n,
           total, mean * 1e3, best * 1e3, alg, bus);
    free(a);
    free(b);
    free(g);
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s PLUGIN STORE_DIR RANK NRANKS suite|open|dies|dies_sending|unmatched|bench [TIMEOUT_MS [EXIT_AFTER_MS]]\n", argv[0]);
        return 2;
    }
    me = atoi(argv[3]);
    n = atoi(argv[4]);
    const char *mode = argv[5];
    int timeout_ms = argc > 6 ? atoi(argv[6]) : 30000;
    snprintf(store_dir, sizeof store_dir, "%s", argv[2]);
    if (n < 1 || n > 64) {
        fail("nranks %d", n);
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fail("dlopen: %s", dlerror());
    }
    hg_net_ops_fn get = (hg_net_ops_fn)dlsym(lib, "hg_net_gloo_ops");
    if (get == NULL) {
        fail("dlsym hg_net_gloo_ops: %s", dlerror());
    }
    ops = get();
    if (ops->abi_version != HG_NET_ABI_VERSION || strcmp(ops->name, "gloo") != 0) {
        fail("ops table: abi %d name %s", ops->abi_version, ops->name);
    }
    char err[512] = "untouched";
    double t0 = now_s();
    net = ops->open(me, n, &store, "test/", "127.0.0.1", timeout_ms, err, sizeof err);
    double opened = now_s() - t0;
    if (strcmp(mode, "open") == 0) {
        if (net != NULL) {
            printf("ok open succeeded in %.3f s\n", opened);
            ops->close(net);
        } else {
            printf("open failed after %.3f s: %s\n", opened, err);
        }
        return 0;
    }
    if (net == NULL) {
        fail("open: %s", err);
    }
    if (strcmp(mode, "suite") == 0) {
        run_suite();
    } else if (strcmp(mode, "bench") == 0) {
        run_bench();
    } else if (strcmp(mode, "dies") == 0) {
        if (me == 1) {
            _exit(0); /* no close: the connection just drops */
        }
        uint8_t b[8];
        t0 = now_s();
        int rc = ops->recv(net, b, sizeof b, 1, 7);
        if (rc == 0) {
            fail("recv from a rank that exited succeeded");
        }
        printf("recv failed after %.3f s: %s\n", now_s() - t0, ops->last_error(net));
        rc = ops->barrier(net);
        printf("barrier then: rc %d: %s\n", rc, ops->last_error(net));
        if (rc == 0) {
            fail("barrier after a failure succeeded");
        }
    } else if (strcmp(mode, "dies_sending") == 0) {
        size_t big = (size_t)256 << 20;
        uint8_t *b = xmalloc(big);
        memset(b, 1, big);
        call_ok(ops->barrier(net), "barrier");
        if (me == 1) {
            pthread_t th;
            if (pthread_create(&th, NULL, recv_big, b) != 0) {
                fail("pthread_create");
            }
            sleep_ms(argc > 7 ? atoi(argv[7]) : 100);
            _exit(0); /* mid-transfer, no close */
        }
        int rc = ops->send(net, b, big, 1, 3);
        printf("send rc %d\n", rc);
        rc = ops->recv(net, b, 8, 1, 7);
        printf("recv rc %d: %s\n", rc, ops->last_error(net));
        if (rc == 0) {
            fail("recv from a rank that exited succeeded");
        }
        free(b);
    } else if (strcmp(mode, "unmatched") == 0) {
        uint8_t b[8] = {0};
        t0 = now_s();
        if (me == 0) {
            int rc = ops->recv(net, b, sizeof b, 1, 9);
            printf("recv rc %d after %.3f s: %s\n", rc, now_s() - t0, ops->last_error(net));
            if (rc == 0) {
                fail("recv of a message never sent succeeded");
            }
        } else {
            call_ok(ops->send(net, b, sizeof b, 0, 10), "send");
            printf("ok send returned after %.3f s\n", now_s() - t0);
        }
    } else {
        fail("unknown mode %s", mode);
    }
    t0 = now_s();
    ops->close(net);
    printf("ok closed in %.3f s\n", now_s() - t0);
    dlclose(lib);
    return 0;
}
