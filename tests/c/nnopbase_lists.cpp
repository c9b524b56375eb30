// Tensor-base containers and getters of libnnopbase, written as an ops-nn sample would use
// them (C++, delete[] on the arrays the getters hand out), plus the device rules of an
// operator launch.  Prints "OK" when every check holds, "FAIL line N: ..." otherwise.
// Usage: nnopbase_lists containers | launch_devices <aclnn name>, where the operator's phase 1
// takes two input tensors and one output tensor (looked up by name with dlsym: nothing here
// knows any operator).
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

// The device check libnnopbase offers the operators (hg_internal.h).
extern "C" aclnnStatus hg_check_devices(const char *func, const aclTensor *const *tensors, const char *const *names,
                                        size_t n, aclrtStream stream);

static int failures = 0;
#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            const char *m_ = aclGetRecentErrMsg();                                          \
            std::printf("FAIL line %d: %s (last error: %s)\n", __LINE__, #cond, m_ ? m_ : "(none)"); \
            ++failures;                                                                     \
        }                                                                                   \
    } while (0)

static bool msg_has(const char *word)
{
    const char *m = aclGetRecentErrMsg();
    return m && std::strstr(m, word);
}

static aclTensor *make_tensor(void *data, int64_t rows, int64_t cols)
{
    int64_t shape[2] = {rows, cols};
    int64_t strides[2] = {cols, 1};
    return aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 2, data);
}

static void arrays()
{
    int64_t iv[3] = {4, -5, 6};
    float fv[2] = {1.5f, -2.0f};
    bool bv[4] = {true, false, true, true};
    aclIntArray *ia = aclCreateIntArray(iv, 3);
    aclFloatArray *fa = aclCreateFloatArray(fv, 2);
    aclBoolArray *ba = aclCreateBoolArray(bv, 4);
    aclIntArray *empty = aclCreateIntArray(nullptr, 5); // NULL values: an empty array
    aclIntArray *zero = aclCreateIntArray(iv, 0);
    CHECK(ia && fa && ba && empty && zero);
    iv[0] = 99; // the array holds a copy
    uint64_t n = 0;
    CHECK(aclGetIntArraySize(ia, &n) == ACLNN_SUCCESS && n == 3);
    CHECK(aclGetFloatArraySize(fa, &n) == ACLNN_SUCCESS && n == 2);
    CHECK(aclGetBoolArraySize(ba, &n) == ACLNN_SUCCESS && n == 4);
    CHECK(aclGetIntArraySize(empty, &n) == ACLNN_SUCCESS && n == 0);
    CHECK(aclGetIntArraySize(zero, &n) == ACLNN_SUCCESS && n == 0);
    CHECK(aclGetIntArraySize(nullptr, &n) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(aclGetIntArraySize(ia, nullptr) == ACLNN_ERR_PARAM_NULLPTR);
    // a container of another kind is not an int array
    CHECK(aclGetIntArraySize(reinterpret_cast<aclIntArray *>(fa), &n) == ACLNN_ERR_PARAM_INVALID);
    CHECK(aclDestroyIntArray(ia) == ACLNN_SUCCESS);
    CHECK(aclDestroyIntArray(ia) == ACLNN_ERR_PARAM_INVALID); // already destroyed
    CHECK(msg_has("aclDestroyIntArray"));
    CHECK(aclGetIntArraySize(ia, &n) == ACLNN_ERR_PARAM_INVALID);
    CHECK(aclDestroyFloatArray(fa) == ACLNN_SUCCESS);
    CHECK(aclDestroyBoolArray(ba) == ACLNN_SUCCESS);
    CHECK(aclDestroyIntArray(empty) == ACLNN_SUCCESS);
    CHECK(aclDestroyIntArray(zero) == ACLNN_SUCCESS);
    CHECK(aclDestroyIntArray(nullptr) == ACLNN_SUCCESS);
    CHECK(aclDestroyTensorList(nullptr) == ACLNN_SUCCESS);
    CHECK(aclDestroyScalarList(nullptr) == ACLNN_SUCCESS);
}

static void lists_own_their_elements()
{
    float buf[6] = {0};
    aclTensor *a = make_tensor(buf, 2, 3);
    aclTensor *b = make_tensor(buf, 3, 2);
    const aclTensor *items[2] = {a, b};
    aclTensorList *tl = aclCreateTensorList(items, 2);
    CHECK(tl != nullptr);
    uint64_t n = 0;
    CHECK(aclGetTensorListSize(tl, &n) == ACLNN_SUCCESS && n == 2);
    float one = 1.0f;
    aclScalar *s1 = aclCreateScalar(&one, ACL_FLOAT);
    aclScalar *s2 = aclCreateScalar(&one, ACL_FLOAT);
    const aclScalar *sitems[2] = {s1, s2};
    aclScalarList *sl = aclCreateScalarList(sitems, 2);
    CHECK(aclGetScalarListSize(sl, &n) == ACLNN_SUCCESS && n == 2);
    // destroying a list destroys its elements: afterwards they are unknown tensors/scalars
    CHECK(aclDestroyTensorList(tl) == ACLNN_SUCCESS);
    aclDataType dt;
    CHECK(aclGetDataType(a, &dt) == ACLNN_ERR_PARAM_INVALID);
    CHECK(aclDestroyTensor(b) == ACLNN_ERR_PARAM_INVALID);
    CHECK(aclDestroyScalarList(sl) == ACLNN_SUCCESS);
    CHECK(aclDestroyScalar(s1) == ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
}

static void getters()
{
    float buf[12] = {0};
    int64_t shape[2] = {2, 3};
    int64_t strides[2] = {1, 2}; // a transposed view
    int64_t storage[1] = {12};
    aclTensor *t = aclCreateTensor(shape, 2, ACL_FLOAT, strides, 1, ACL_FORMAT_ND, storage, 1, buf);
    CHECK(t != nullptr);
    int64_t *dims = nullptr;
    uint64_t n = 0;
    CHECK(aclGetViewShape(t, &dims, &n) == ACLNN_SUCCESS && n == 2 && dims[0] == 2 && dims[1] == 3);
    delete[] dims;
    CHECK(aclGetViewStrides(t, &dims, &n) == ACLNN_SUCCESS && n == 2 && dims[0] == 1 && dims[1] == 2);
    delete[] dims;
    CHECK(aclGetStorageShape(t, &dims, &n) == ACLNN_SUCCESS && n == 1 && dims[0] == 12);
    delete[] dims;
    CHECK(aclGetViewShape(nullptr, &dims, &n) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(aclGetViewShape(t, nullptr, &n) == ACLNN_ERR_PARAM_NULLPTR);
    int64_t s0 = 0;
    aclTensor *scalar_t = aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &s0, 0, buf);
    CHECK(aclGetViewShape(scalar_t, &dims, &n) == ACLNN_SUCCESS && n == 0);
    delete[] dims; // a 0-d tensor still gets an array to delete[]
    void *addr = nullptr;
    CHECK(aclGetRawTensorAddr(t, &addr) == ACLNN_SUCCESS && addr == buf);
    CHECK(aclSetRawTensorAddr(t, buf + 1) == ACLNN_SUCCESS);
    CHECK(aclGetRawTensorAddr(t, &addr) == ACLNN_SUCCESS && addr == buf + 1);
    CHECK(aclGetRawTensorAddr(nullptr, &addr) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(aclSetRawTensorAddr(nullptr, buf) == ACLNN_ERR_PARAM_NULLPTR);
    CHECK(aclDestroyTensor(t) == ACLNN_SUCCESS);
    CHECK(aclDestroyTensor(scalar_t) == ACLNN_SUCCESS);
    CHECK(aclGetRawTensorAddr(t, &addr) == ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
}

// Runs with PYACL_HARDGRAD_DEVICE_COUNT=2.
typedef aclnnStatus (*Phase1)(const aclTensor *, const aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*Phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream);

static void launch_devices(const char *op)
{
    // libopapi lies beside libnnopbase; a dlopen by bare name searches the caller's run path,
    // and under an interposed dlopen (an LD_PRELOADed sanitizer runtime) the caller is not
    // this program, so name the folder
    char path[4096] = "libopapi.so";
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&aclCreateTensor), &info) != 0 && info.dli_fname != nullptr) {
        const char *slash = std::strrchr(info.dli_fname, '/');
        if (slash != nullptr)
            std::snprintf(path, sizeof path, "%.*s/libopapi.so", static_cast<int>(slash - info.dli_fname),
                          info.dli_fname);
    }
    void *libopapi = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    void *from = libopapi ? libopapi : RTLD_DEFAULT;
    char name1[256];
    std::snprintf(name1, sizeof name1, "%sGetWorkspaceSize", op);
    Phase1 phase1 = reinterpret_cast<Phase1>(dlsym(from, name1));
    Phase2 phase2 = reinterpret_cast<Phase2>(dlsym(from, op));
    if (phase1 == nullptr || phase2 == nullptr) {
        std::printf("FAIL: %s or %s not found\n", name1, op);
        failures++;
        return;
    }
    CHECK(aclInit(nullptr) == ACL_SUCCESS);
    CHECK(aclrtSetDevice(1) == ACL_SUCCESS);
    aclrtStream s1 = nullptr;
    CHECK(aclrtCreateStream(&s1) == ACL_SUCCESS);
    void *ws1 = nullptr;
    CHECK(aclrtMalloc(&ws1, 4096, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
    void *d0 = nullptr;
    CHECK(aclrtMalloc(&d0, 3 * 6 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    float *f = static_cast<float *>(d0);
    aclTensor *g = make_tensor(f, 2, 3), *x = make_tensor(f + 6, 2, 3), *out = make_tensor(f + 12, 2, 3);
    uint64_t ws = 0;
    aclOpExecutor *exe = nullptr;
    CHECK(phase1(g, x, out, &ws, &exe) == ACLNN_SUCCESS);
    CHECK(aclSetAclOpExecutorRepeatable(exe) == ACLNN_SUCCESS);
    // planned on device 0, launched on a device-1 stream
    CHECK(phase2(ws1, 4096, exe, s1) == ACLNN_ERR_PARAM_INVALID);
    CHECK(msg_has("device 0") );
    // a device-1 workspace on a device-0 stream
    CHECK(phase2(ws1, 4096, exe, nullptr) == ACLNN_ERR_PARAM_INVALID);
    (void)aclGetRecentErrMsg();
    // these operators captured their addresses in phase 1: the setters say so
    CHECK(aclSetInputTensorAddr(exe, 0, g, f) == ACLNN_ERR_PARAM_INVALID);
    CHECK(msg_has("cannot take new tensor addresses"));
    CHECK(AclSetTensorAddr(exe, 0, g, f) == ACLNN_ERR_PARAM_INVALID);
    CHECK(aclSetInputTensorAddr(nullptr, 0, g, f) == ACLNN_ERR_INNER_NULLPTR);
    const aclTensor *items[1] = {make_tensor(f, 2, 3)};
    aclTensorList *tl = aclCreateTensorList(items, 1);
    CHECK(aclSetDynamicInputTensorAddr(exe, 0, 1, tl, f) == ACLNN_ERR_PARAM_INVALID);
    CHECK(msg_has("relativeIndex (1)"));
    CHECK(aclDestroyTensorList(tl) == ACLNN_SUCCESS);
    // the same launch on the right device runs
    CHECK(phase2(nullptr, 0, exe, nullptr) == ACLNN_SUCCESS);
    CHECK(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS);
    CHECK(aclDestroyAclOpExecutor(exe) == ACLNN_SUCCESS);
    // the helper operators call: a tensor of device 0 with a device-1 stream
    const aclTensor *ts[2] = {g, x};
    const char *names[2] = {"gradOutput", "self"};
    CHECK(hg_check_devices("aclnnSample", ts, names, 2, nullptr) == ACLNN_SUCCESS);
    CHECK(hg_check_devices("aclnnSample", ts, names, 2, s1) == ACLNN_ERR_PARAM_INVALID);
    CHECK(msg_has("gradOutput is memory of device 0 but the stream belongs to device 1"));
    aclDestroyTensor(g);
    aclDestroyTensor(x);
    aclDestroyTensor(out);
    CHECK(aclrtFree(d0) == ACL_SUCCESS);
    CHECK(aclrtFree(ws1) == ACL_SUCCESS);
    CHECK(aclrtDestroyStream(s1) == ACL_SUCCESS);
    CHECK(aclrtResetDevice(0) == ACL_SUCCESS);
    CHECK(aclrtResetDevice(1) == ACL_SUCCESS);
    CHECK(aclFinalize() == ACL_SUCCESS);
    if (libopapi != nullptr) {
        dlclose(libopapi);
    }
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (std::strcmp(what, "containers") == 0) {
        arrays();
        lists_own_their_elements();
        getters();
    } else if (std::strcmp(what, "launch_devices") == 0 && argc > 2) {
        launch_devices(argv[2]);
    } else {
        std::printf("usage: %s containers | launch_devices <aclnn name>\n", argv[0]);
        return 2;
    }
    if (failures)
        return 1;
    std::printf("OK\n");
    return 0;
}
