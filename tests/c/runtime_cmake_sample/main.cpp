// Host-only program in the style of CANN's runtime samples: SoC name before aclInit (as
// CANN's get_soc_version tool asks), the package version from ASCEND_HOME_PATH, a stream
// callback and a tensor-base container, all through the CANN-shaped tree.
#include <cstdio>
#include <thread>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

#define CHECK(call)                                                        \
    do {                                                                   \
        aclError r_ = (call);                                              \
        if (r_ != ACL_SUCCESS) {                                           \
            std::printf("[ERROR] %s returned %d\n", #call, (int)r_);       \
            return 1;                                                      \
        }                                                                  \
    } while (0)

static void on_stream(void *p)
{
    *static_cast<int *>(p) = 42;
}

int main()
{
    const char *soc = aclrtGetSocName();
    std::printf("soc=%s\n", soc ? soc : "(null)");
    CHECK(aclInit(nullptr));
    char version[ACL_PKG_VERSION_MAX_SIZE];
    CHECK(aclsysGetVersionStr(const_cast<char *>("runtime"), version));
    std::printf("runtime version=%s\n", version);
    CHECK(aclrtSetDevice(0));
    aclrtStream stream;
    CHECK(aclrtCreateStream(&stream));
    CHECK(aclrtSubscribeReport(static_cast<uint64_t>(pthread_self()), stream));
    int seen = 0;
    CHECK(aclrtLaunchCallback(on_stream, &seen, ACL_CALLBACK_NO_BLOCK, stream));
    while (seen == 0) {
        aclError r = aclrtProcessReport(100);
        if (r != ACL_SUCCESS && r != ACL_ERROR_RT_REPORT_TIMEOUT)
            return 1;
    }
    std::printf("callback value=%d\n", seen);
    CHECK(aclrtUnSubscribeReport(static_cast<uint64_t>(pthread_self()), stream));
    int64_t dims[3] = {2, 3, 4};
    aclIntArray *arr = aclCreateIntArray(dims, 3);
    uint64_t n = 0;
    if (!arr || aclGetIntArraySize(arr, &n) != 0 || aclDestroyIntArray(arr) != 0)
        return 1;
    std::printf("int array size=%llu\n", static_cast<unsigned long long>(n));
    CHECK(aclrtDestroyStreamForce(stream));
    CHECK(aclrtResetDeviceForce(0));
    CHECK(aclFinalize());
    std::printf("[SUCCESS]\n");
    return 0;
}
