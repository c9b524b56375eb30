/*
 * One rank of an HCCL program run as N processes, as if on N hosts: the test sets
 * PYACL_HARDGRAD_HCCL_TRANSPORT=net, so every byte between the ranks goes through the engine
 * plugin (libhg_net_gloo.so) over loopback.
 *
 *   hccl_net_procs ROOT_INFO_FILE RANK NRANKS
 *
 * Rank 0 writes HcclGetRootInfo's bytes to ROOT_INFO_FILE (atomically, by rename); the others
 * wait for it.  Every collective is checked element for element on every rank (integer data,
 * and float data whose sums are exact).  Prints "ok ..." lines; a failed check prints
 * "FAIL ..." and exits 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hccl_comm.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int me, n;

static void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL rank %d: ", me);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    fflush(stdout);
    exit(1);
}

#define CHECK_ACL(call)                                                                                      \
    do {                                                                                                     \
        aclError rc_ = (call);                                                                               \
        if (rc_ != ACL_SUCCESS) {                                                                            \
            fail("%s = %d (%s)", #call, (int)rc_, aclGetRecentErrMsg());                                     \
        }                                                                                                    \
    } while (0)

#define CHECK_HCCL(call)                                                                                     \
    do {                                                                                                     \
        HcclResult rc_ = (call);                                                                             \
        if (rc_ != HCCL_SUCCESS) {                                                                           \
            fail("%s = %d (%s)", #call, (int)rc_, HcclGetErrorString(rc_));                                  \
        }                                                                                                    \
    } while (0)

static aclrtStream stream;
static HcclComm comm;

static void *dev_alloc(size_t bytes) {
    void *p = NULL;
    CHECK_ACL(aclrtMalloc(&p, bytes ? bytes : 4, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
}

static void to_dev(void *dev, const void *host, size_t bytes) {
    CHECK_ACL(aclrtMemcpy(dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
}

static void to_host(void *host, const void *dev, size_t bytes) {
    CHECK_ACL(aclrtMemcpy(host, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
}

static int32_t *host_i32(size_t count) {
    int32_t *p = malloc(count * sizeof *p + 4);
    if (p == NULL) {
        fail("out of memory");
    }
    return p;
}

static void check_allreduce(size_t count) {
    size_t bytes = count * sizeof(int32_t);
    int32_t *h = host_i32(count);
    float *f = malloc(count * sizeof *f + 4);
    void *send = dev_alloc(bytes), *recv = dev_alloc(bytes);
    /* int32 sum and max */
    for (size_t i = 0; i < count; i++) {
        h[i] = (int32_t)(me * 1000 + (int32_t)(i % 100000)) * ((i % 2) ? -1 : 1);
    }
    to_dev(send, h, bytes);
    CHECK_HCCL(HcclAllReduce(send, recv, count, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));
    to_host(h, recv, bytes);
    for (size_t i = 0; i < count; i++) {
        int32_t want = 0;
        for (int r = 0; r < n; r++) {
            want += (int32_t)(r * 1000 + (int32_t)(i % 100000)) * ((i % 2) ? -1 : 1);
        }
        if (h[i] != want) {
            fail("allreduce int32 sum: element %zu of %zu is %d, expected %d", i, count, h[i], want);
        }
    }
    for (size_t i = 0; i < count; i++) {
        h[i] = (int32_t)((me * 7919 + (int)i * 31) % 1009);
    }
    to_dev(send, h, bytes);
    CHECK_HCCL(HcclAllReduce(send, recv, count, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, comm, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));
    to_host(h, recv, bytes);
    for (size_t i = 0; i < count; i++) {
        int32_t want = INT32_MIN;
        for (int r = 0; r < n; r++) {
            int32_t v = (int32_t)((r * 7919 + (int)i * 31) % 1009);
            want = v > want ? v : want;
        }
        if (h[i] != want) {
            fail("allreduce int32 max: element %zu is %d, expected %d", i, h[i], want);
        }
    }
    /* fp32 sum of small integers and halves: exact in any order */
    for (size_t i = 0; i < count; i++) {
        f[i] = (float)(me + 1) * 0.5f + (float)(i % 1024);
    }
    to_dev(send, f, bytes);
    CHECK_HCCL(HcclAllReduce(send, recv, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));
    to_host(f, recv, bytes);
    for (size_t i = 0; i < count; i++) {
        float want = 0;
        for (int r = 0; r < n; r++) {
            want += (float)(r + 1) * 0.5f + (float)(i % 1024);
        }
        if (f[i] != want) {
            fail("allreduce fp32 sum: element %zu is %g, expected %g", i, (double)f[i], (double)want);
        }
    }
    CHECK_ACL(aclrtFree(send));
    CHECK_ACL(aclrtFree(recv));
    free(h);
    free(f);
}

static void check_allgather(size_t count) {
    size_t bytes = count * sizeof(int32_t);
    int32_t *h = host_i32(count * (size_t)n);
    void *send = dev_alloc(bytes), *recv = dev_alloc(bytes * (size_t)n);
    for (size_t i = 0; i < count; i++) {
        h[i] = me * 100000 + (int32_t)(i % 99991);
    }
    to_dev(send, h, bytes);
    CHECK_HCCL(HcclAllGather(send, recv, count, HCCL_DATA_TYPE_INT32, comm, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));
    to_host(h, recv, bytes * (size_t)n);
    for (int r = 0; r < n; r++) {
        for (size_t i = 0; i < count; i++) {
            int32_t want = r * 100000 + (int32_t)(i % 99991);
            if (h[(size_t)r * count + i] != want) {
                fail("allgather: block %d element %zu is %d, expected %d", r, i, h[(size_t)r * count + i], want);
            }
        }
    }
    CHECK_ACL(aclrtFree(send));
    CHECK_ACL(aclrtFree(recv));
    free(h);
}

static void check_broadcast(size_t count) {
    size_t bytes = count * sizeof(int32_t);
    int32_t *h = host_i32(count);
    void *buf = dev_alloc(bytes);
    for (int root = 0; root < n; root++) {
        for (size_t i = 0; i < count; i++) {
            h[i] = me == root ? root * 31 + (int32_t)(i % 65521) : -1;
        }
        to_dev(buf, h, bytes);
        CHECK_HCCL(HcclBroadcast(buf, count, HCCL_DATA_TYPE_INT32, (uint32_t)root, comm, stream));
        CHECK_ACL(aclrtSynchronizeStream(stream));
        to_host(h, buf, bytes);
        for (size_t i = 0; i < count; i++) {
            if (h[i] != root * 31 + (int32_t)(i % 65521)) {
                fail("broadcast from %d: element %zu is %d", root, i, h[i]);
            }
        }
    }
    CHECK_ACL(aclrtFree(buf));
    free(h);
}

static void check_alltoall(size_t count) {
    size_t total = count * (size_t)n, bytes = total * sizeof(int32_t);
    int32_t *h = host_i32(total);
    void *send = dev_alloc(bytes), *recv = dev_alloc(bytes);
    for (int q = 0; q < n; q++) {
        for (size_t j = 0; j < count; j++) {
            h[(size_t)q * count + j] = me * 1000000 + q * 10000 + (int32_t)(j % 9973);
        }
    }
    to_dev(send, h, bytes);
    CHECK_HCCL(HcclAlltoAll(send, count, HCCL_DATA_TYPE_INT32, recv, count, HCCL_DATA_TYPE_INT32, comm, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));
    to_host(h, recv, bytes);
    for (int q = 0; q < n; q++) {
        for (size_t j = 0; j < count; j++) {
            int32_t want = q * 1000000 + me * 10000 + (int32_t)(j % 9973);
            if (h[(size_t)q * count + j] != want) {
                fail("alltoall: block from %d element %zu is %d, expected %d", q, j, h[(size_t)q * count + j], want);
            }
        }
    }
    CHECK_ACL(aclrtFree(send));
    CHECK_ACL(aclrtFree(recv));
    free(h);
}

/* A ring: even ranks send to the next rank first, odd ranks receive from the previous first. */
static void check_send_recv(size_t count) {
    size_t bytes = count * sizeof(int32_t);
    int32_t *h = host_i32(count);
    void *out = dev_alloc(bytes), *in = dev_alloc(bytes);
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    for (size_t i = 0; i < count; i++) {
        h[i] = me * 77 + (int32_t)(i % 50021);
    }
    to_dev(out, h, bytes);
    if (me % 2 == 0) {
        CHECK_HCCL(HcclSend(out, count, HCCL_DATA_TYPE_INT32, (uint32_t)next, comm, stream));
        CHECK_HCCL(HcclRecv(in, count, HCCL_DATA_TYPE_INT32, (uint32_t)prev, comm, stream));
    } else {
        CHECK_HCCL(HcclRecv(in, count, HCCL_DATA_TYPE_INT32, (uint32_t)prev, comm, stream));
        CHECK_HCCL(HcclSend(out, count, HCCL_DATA_TYPE_INT32, (uint32_t)next, comm, stream));
    }
    CHECK_ACL(aclrtSynchronizeStream(stream));
    to_host(h, in, bytes);
    for (size_t i = 0; i < count; i++) {
        if (h[i] != prev * 77 + (int32_t)(i % 50021)) {
            fail("send/recv: element %zu from rank %d is %d", i, prev, h[i]);
        }
    }
    CHECK_ACL(aclrtFree(out));
    CHECK_ACL(aclrtFree(in));
    free(h);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s ROOT_INFO_FILE RANK NRANKS\n", argv[0]);
        return 2;
    }
    me = atoi(argv[2]);
    n = atoi(argv[3]);
    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    CHECK_ACL(aclrtCreateStream(&stream));
    HcclRootInfo root;
    char tmp[1100];
    if (me == 0) {
        CHECK_HCCL(HcclGetRootInfo(&root));
        snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
        FILE *f = fopen(tmp, "wb");
        if (f == NULL || fwrite(&root, sizeof root, 1, f) != 1 || fclose(f) != 0 || rename(tmp, argv[1]) != 0) {
            fail("writing %s", argv[1]);
        }
    } else {
        FILE *f = NULL;
        for (int tries = 0; f == NULL && tries < 6000; tries++) {
            f = fopen(argv[1], "rb");
            if (f == NULL) {
                struct timespec ts = {0, 10000000L};
                nanosleep(&ts, NULL);
            }
        }
        if (f == NULL || fread(&root, sizeof root, 1, f) != 1) {
            fail("reading %s", argv[1]);
        }
        fclose(f);
    }
    CHECK_HCCL(HcclCommInitRootInfo((uint32_t)n, &root, (uint32_t)me, &comm));
    uint32_t size = 0, rank = 0;
    CHECK_HCCL(HcclGetRankSize(comm, &size));
    CHECK_HCCL(HcclGetRankId(comm, &rank));
    if ((int)size != n || (int)rank != me) {
        fail("rank size %u rank id %u", size, rank);
    }
    static const size_t counts[] = {1, 1000, 65537, (size_t)1 << 20};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        size_t c = counts[k];
        check_allreduce(c);
        check_allgather(c);
        check_broadcast(c);
        check_alltoall(c);
        check_send_recv(c);
        CHECK_HCCL(HcclBarrier(comm, stream));
        CHECK_ACL(aclrtSynchronizeStream(stream));
        printf("ok count %zu: allreduce (int32 sum, max; fp32 sum), allgather, broadcast from every root, "
               "alltoall, send/recv ring, barrier\n", c);
        fflush(stdout);
    }
    CHECK_HCCL(HcclCommDestroy(comm));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("ok done\n");
    return 0;
}
