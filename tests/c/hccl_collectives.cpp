// HCCL's C API in the style of HCCL's own examples: one thread per device, the root info made
// once and shared, each thread joins with HcclCommInitRootInfo and runs collectives on its
// stream.  Every rank checks its outputs and prints them; the program exits 0 when all match.
// Built with the flags of HCCL's example Makefiles (-std=c++14 -Werror ... -lhccl -lascendcl).
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "hccl/hccl.h"
#include "hccl/hccl_types.h"

#define ACLCHECK(ret)                                                                        \
    do {                                                                                     \
        aclError acl_r_ = (ret);                                                             \
        if (acl_r_ != ACL_SUCCESS) {                                                         \
            std::printf("acl error %d at %s:%d\n", static_cast<int>(acl_r_), __FILE__, __LINE__); \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

#define HCCLCHECK(ret)                                                                       \
    do {                                                                                     \
        HcclResult hccl_r_ = (ret);                                                          \
        if (hccl_r_ != HCCL_SUCCESS) {                                                       \
            std::printf("hccl error %d (%s) at %s:%d: %s\n", static_cast<int>(hccl_r_),    \
                        HcclGetErrorString(hccl_r_), __FILE__, __LINE__, aclGetRecentErrMsg()); \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

static std::atomic<int> g_failures(0);

struct Ctx {
    const HcclRootInfo *rootInfo;
    uint32_t rank;
    uint32_t nranks;
};

static void *DevCopy(const std::vector<float> &host)
{
    void *p = nullptr;
    size_t bytes = host.size() * sizeof(float);
    if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return nullptr;
    aclrtMemcpy(p, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    return p;
}

static std::vector<float> HostCopy(void *p, size_t n)
{
    std::vector<float> out(n);
    aclrtMemcpy(out.data(), n * sizeof(float), p, n * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
    return out;
}

static void Expect(uint32_t rank, const char *what, const std::vector<float> &got, const std::vector<float> &want)
{
    bool same = got.size() == want.size();
    for (size_t i = 0; same && i < got.size(); ++i)
        same = got[i] == want[i];
    std::printf("rankId: %u, %s: [", rank, what);
    for (float v : got)
        std::printf(" %g", static_cast<double>(v));
    std::printf(" ]%s\n", same ? "" : "  MISMATCH");
    if (!same)
        g_failures++;
}

static int Sample(Ctx *ctx)
{
    const uint32_t rank = ctx->rank, n = ctx->nranks;
    const uint64_t count = 4;
    ACLCHECK(aclrtSetDevice(static_cast<int32_t>(rank)));
    HcclComm comm;
    HCCLCHECK(HcclCommInitRootInfo(n, ctx->rootInfo, rank, &comm));
    uint32_t size = 0, id = 0;
    HCCLCHECK(HcclGetRankSize(comm, &size));
    HCCLCHECK(HcclGetRankId(comm, &id));
    if (size != n || id != rank)
        g_failures++;
    aclrtStream stream;
    ACLCHECK(aclrtCreateStream(&stream));

    // input of rank r: r * 10 + i
    std::vector<float> in(count), all(count * n);
    for (uint64_t i = 0; i < count; ++i)
        in[i] = static_cast<float>(rank * 10 + i);
    for (uint32_t q = 0; q < n; ++q)
        for (uint64_t i = 0; i < count; ++i)
            all[q * count + i] = static_cast<float>(q * 10 + i);
    void *send = DevCopy(in);
    void *recv = DevCopy(std::vector<float>(count * n, -1.0f));
    void *big = DevCopy(all);                      // n blocks of count, for reduce-scatter and scatter

    // all-reduce (sum), then max
    HCCLCHECK(HcclAllReduce(send, recv, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
    ACLCHECK(aclrtSynchronizeStream(stream));
    std::vector<float> want(count);
    for (uint64_t i = 0; i < count; ++i)
        want[i] = static_cast<float>(10.0 * n * (n - 1) / 2 + static_cast<double>(n * i));
    Expect(rank, "allreduce sum", HostCopy(recv, count), want);
    HCCLCHECK(HcclAllReduce(send, recv, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_MAX, comm, stream));
    ACLCHECK(aclrtSynchronizeStream(stream));
    for (uint64_t i = 0; i < count; ++i)
        want[i] = static_cast<float>((n - 1) * 10 + i);
    Expect(rank, "allreduce max", HostCopy(recv, count), want);

    // broadcast from the last rank
    void *buf = DevCopy(in);
    HCCLCHECK(HcclBroadcast(buf, count, HCCL_DATA_TYPE_FP32, n - 1, comm, stream));
    ACLCHECK(aclrtSynchronizeStream(stream));
    for (uint64_t i = 0; i < count; ++i)
        want[i] = static_cast<float>((n - 1) * 10 + i);
    Expect(rank, "broadcast", HostCopy(buf, count), want);

    // all-gather
    HCCLCHECK(HcclAllGather(send, recv, count, HCCL_DATA_TYPE_FP32, comm, stream));
    ACLCHECK(aclrtSynchronizeStream(stream));
    Expect(rank, "allgather", HostCopy(recv, count * n), all);

    // reduce-scatter of the n blocks (every rank sends the same): block r times n
    HCCLCHECK(HcclReduceScatter(big, recv, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, stream));
    ACLCHECK(aclrtSynchronizeStream(stream));
    for (uint64_t i = 0; i < count; ++i)
        want[i] = static_cast<float>(n * (rank * 10 + i));
    Expect(rank, "reducescatter", HostCopy(recv, count), want);

    // scatter from rank 0 (non-root ranks pass no send buffer, as HCCL's example does)
    HCCLCHECK(HcclScatter(rank == 0 ? big : nullptr, recv, count, HCCL_DATA_TYPE_FP32, 0, comm, stream));
    ACLCHECK(aclrtSynchronizeStream(stream));
    Expect(rank, "scatter", HostCopy(recv, count), in);

    // ring send/recv in a group: receive from the left, send to the right
    HCCLCHECK(HcclGroupStart());
    HCCLCHECK(HcclRecv(recv, count, HCCL_DATA_TYPE_FP32, (rank + n - 1) % n, comm, stream));
    HCCLCHECK(HcclSend(send, count, HCCL_DATA_TYPE_FP32, (rank + 1) % n, comm, stream));
    HCCLCHECK(HcclGroupEnd());
    HCCLCHECK(HcclBarrier(comm, stream));
    ACLCHECK(aclrtSynchronizeStream(stream));
    uint32_t left = (rank + n - 1) % n;
    for (uint64_t i = 0; i < count; ++i)
        want[i] = static_cast<float>(left * 10 + i);
    Expect(rank, "ring sendrecv", HostCopy(recv, count), want);

    HcclResult async = HCCL_E_INTERNAL;
    HCCLCHECK(HcclGetCommAsyncError(comm, &async));
    if (async != HCCL_SUCCESS)
        g_failures++;
    HCCLCHECK(HcclCommDestroy(comm));
    ACLCHECK(aclrtFree(send));
    ACLCHECK(aclrtFree(recv));
    ACLCHECK(aclrtFree(big));
    ACLCHECK(aclrtFree(buf));
    ACLCHECK(aclrtDestroyStream(stream));
    return 0;
}

int main()
{
    ACLCHECK(aclInit(nullptr));
    uint32_t devCount = 0;
    ACLCHECK(aclrtGetDeviceCount(&devCount));
    std::printf("Found %u NPU device(s) available\n", devCount);
    ACLCHECK(aclrtSetDevice(0));
    HcclRootInfo rootInfo;
    HCCLCHECK(HcclGetRootInfo(&rootInfo));
    HcclCommConfig config;
    HcclCommConfigInit(&config);
    if (config.hcclBufferSize != HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET || (HcclGetCommConfigCapability() & 1u) == 0)
        g_failures++;
    std::vector<std::thread> threads;
    std::vector<Ctx> ctx(devCount);
    std::vector<int> rcs(devCount, 0);
    for (uint32_t i = 0; i < devCount; ++i) {
        ctx[i] = Ctx{&rootInfo, i, devCount};
        threads.emplace_back([&ctx, &rcs, i]() { rcs[i] = Sample(&ctx[i]); });
    }
    for (auto &t : threads)
        t.join();
    for (int rc : rcs)
        if (rc != 0)
            g_failures++;
    ACLCHECK(aclFinalize());
    std::printf("%s\n", g_failures.load() == 0 ? "hccl_collectives: all outputs match" : "hccl_collectives: FAILED");
    return g_failures.load() == 0 ? 0 : 1;
}
