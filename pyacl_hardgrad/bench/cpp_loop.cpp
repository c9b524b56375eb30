// pyacl_hardgrad benchmark, C++ side: the loops `python -m pyacl_hardgrad bench` times from
// Python, written directly against the C API, so the two can be compared call for call.
//
// Build (the bench does this itself and caches the binary):
//   c++ -O2 cpp_loop.cpp -I<include> -L<lib> -lascendcl -lnnopbase -lopapi -Wl,-rpath,<lib>
// Run:
//   cpp_loop --sizes 8,4096 --dtypes float32,float16,bfloat16
//            --ops aclnnXxx/ttsso/-1:1,aclnnYyy/tto/ --repeat 5 --target-ms 40
// An operator is given as <aclnn name>/<kinds>/<scalars>: kinds lists phase 1's parameters before
// workspaceSize and executor (t: an input tensor, o: the output tensor, s: a float32 scalar), and
// scalars the values of the s parameters, ':'-separated.  Its two functions are looked up by name
// (dlsym) in the libraries the program is linked with: nothing here knows any operator.
// Prints one JSON object on stdout: the per-call cost of aclrtGetDevice and, for every
// (op, dtype, size), two modes:
//   fresh: phase 1 (GetWorkspaceSize) + phase 2 + aclrtSynchronizeStream per call;
//   plan:  phase 1 once, aclSetAclOpExecutorRepeatable, then phase 2 + sync per call;
//   plan_async (sizes <= 65536): phase 2 per call, one sync per timed batch.
// Each measurement is calibrated to about target-ms per repeat; median and min are per call.
//
// Serve mode (what the bench uses, so C++ and Python can be timed alternately, cell by cell,
// without paying process start-up per measurement):
//   cpp_loop --serve
// reads one command per line on stdin and answers each with one JSON line on stdout:
//   trivial <repeat> <target-ms>                  -> {"median_ns", "min_ns", "iters", "repeats"}
//   cell <op> <dtype> <size> <mode> 0 <target-ms> -> {"iters": k, "calib_ns": t}  (warm-up, calibrate
//                                                    k so one batch lasts about target-ms)
//   cell <op> <dtype> <size> <mode> <k> 0         -> {"ns": t, "iters": k}  (one warm-up call, then
//                                                    one timed batch of k calls; t per call)
//   quit
// mode is fresh, plan or plan_async (as above), or alloc: aclrtMalloc + aclCreateTensor +
// aclDestroyTensor + aclrtFree of one tensor of the size and dtype per call (the op is not called).  The buffers of the last dtype and size and one
// repeatable executor per op on them are kept, so repeating a cell costs no set-up.  Failures answer {"error": "..."}.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <dlfcn.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

namespace {

// Largest size with an async (no wait per call) measurement; above it the kernel dominates.
const int64_t kAsyncMaxSize = 65536;

struct Options {
    std::vector<int64_t> sizes{8, 4096};
    std::vector<std::string> dtypes{"float32"};
    std::vector<std::string> ops;
    int repeat = 5;
    double targetMs = 40.0;
};

struct Stats {
    double medianNs = 0;
    double minNs = 0;
    long iters = 0;
    int repeats = 0;
};

// Set by the first failing call; the program then reports it and exits with status 1.
std::string g_error;

bool Ok(const char *what, int rc)
{
    if (rc == 0) {
        return true;
    }
    if (g_error.empty()) {
        const char *msg = aclGetRecentErrMsg();
        g_error = std::string(what) + " returned " + std::to_string(rc) + ": " + (msg ? msg : "");
    }
    return false;
}

int64_t NowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::vector<std::string> Split(const char *s)
{
    std::vector<std::string> out;
    std::string cur;
    for (const char *p = s; *p; ++p) {
        if (*p == ',') {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
        } else {
            cur += *p;
        }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

// Runs body(k) (k iterations, returns false on error): one warm-up, a calibration that
// picks k so one repeat lasts about targetNs, then `repeat` timed repeats.
template <typename Body>
bool Measure(Body body, int repeat, double targetNs, Stats *st)
{
    if (!body(1)) return false;
    long k = 1;
    double perCall = 0;
    for (;;) {
        int64_t t0 = NowNs();
        if (!body(k)) return false;
        double el = static_cast<double>(NowNs() - t0);
        perCall = el / static_cast<double>(k);
        if (el >= targetNs / 8 || k >= (1L << 30)) break;
        k *= 8;
    }
    k = std::max(1L, static_cast<long>(targetNs / std::max(perCall, 1.0)));
    std::vector<double> v;
    for (int r = 0; r < repeat; ++r) {
        int64_t t0 = NowNs();
        if (!body(k)) return false;
        v.push_back(static_cast<double>(NowNs() - t0) / static_cast<double>(k));
    }
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    st->medianNs = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    st->minNs = v[0];
    st->iters = k;
    st->repeats = static_cast<int>(n);
    return true;
}

aclDataType AclDtype(const std::string &name, size_t *itemsize)
{
    if (name == "float16") {
        *itemsize = 2;
        return ACL_FLOAT16;
    }
    if (name == "bfloat16") {
        *itemsize = 2;
        return ACL_BF16;
    }
    *itemsize = 4;
    return ACL_FLOAT;
}

// Encodes v (a multiple of 1/8 in [-4, 4], exact in every dtype) into dtype's bits.
void Encode(float v, aclDataType dt, unsigned char *dst)
{
    uint32_t b;
    std::memcpy(&b, &v, 4);
    if (dt == ACL_FLOAT) {
        std::memcpy(dst, &b, 4);
        return;
    }
    uint16_t h;
    if (dt == ACL_BF16) {
        h = static_cast<uint16_t>(b >> 16);
    } else if ((b & 0x7fffffffu) == 0) {
        h = static_cast<uint16_t>(b >> 16);
    } else {
        uint32_t sign = (b >> 16) & 0x8000u;
        int32_t exp = static_cast<int32_t>((b >> 23) & 0xffu) - 127 + 15;
        h = static_cast<uint16_t>(sign | (static_cast<uint32_t>(exp) << 10) | ((b & 0x7fffffu) >> 13));
    }
    std::memcpy(dst, &h, 2);
}

// The tensors of one operator call: every t and o parameter, n elements each.
struct Buffers {
    std::vector<void *> dev;
    std::vector<aclTensor *> t;

    ~Buffers()
    {
        for (size_t i = 0; i < t.size(); ++i) {
            if (t[i]) aclDestroyTensor(t[i]);
            if (dev[i]) aclrtFree(dev[i]);
        }
    }
};

bool MakeBuffers(int64_t n, aclDataType dt, size_t itemsize, int count, Buffers *b)
{
    size_t bytes = static_cast<size_t>(n) * itemsize;
    std::vector<unsigned char> host(bytes);
    uint32_t seed = 12345u;
    b->dev.assign(static_cast<size_t>(count), nullptr);
    b->t.assign(static_cast<size_t>(count), nullptr);
    for (int i = 0; i < count; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            seed = seed * 1664525u + 1013904223u;
            float v = static_cast<float>(static_cast<int>((seed >> 8) % 65u) - 32) / 8.0f;
            Encode(v, dt, host.data() + static_cast<size_t>(j) * itemsize);
        }
        if (!Ok("aclrtMalloc", aclrtMalloc(&b->dev[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST))) return false;
        if (!Ok("aclrtMemcpy", aclrtMemcpy(b->dev[i], bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE))) {
            return false;
        }
        int64_t shape[1] = {n};
        int64_t strides[1] = {1};
        b->t[i] = aclCreateTensor(shape, 1, dt, strides, 0, ACL_FORMAT_ND, shape, 1, b->dev[i]);
        if (!b->t[i]) return Ok("aclCreateTensor", -1);
    }
    return true;
}

struct Workspace {
    void *ptr = nullptr;
    uint64_t size = 0;

    bool Ensure(uint64_t need)
    {
        if (need <= size) return true;
        if (ptr) aclrtFree(ptr);
        ptr = nullptr;
        size = 0;
        if (!Ok("aclrtMalloc workspace", aclrtMalloc(&ptr, need, ACL_MEM_MALLOC_HUGE_FIRST))) return false;
        size = need;
        return true;
    }
    ~Workspace()
    {
        if (ptr) aclrtFree(ptr);
    }
};

bool Fail(const char *msg);

// An operator given on the command line (see the top of the file).
struct Operator {
    std::string token, name, kinds;
    std::vector<aclScalar *> scalars;
    void *phase1 = nullptr;
    void *phase2 = nullptr;
    int tensors = 0;

    ~Operator()
    {
        for (aclScalar *s : scalars) aclDestroyScalar(s);
    }
};

bool ParseOperator(const std::string &token, Operator *op)
{
    op->token = token;
    size_t a = token.find('/'), b = token.find('/', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos) return Fail("unknown op: an operator token is name/kinds/scalars");
    op->name = token.substr(0, a);
    op->kinds = token.substr(a + 1, b - a - 1);
    std::string vals = token.substr(b + 1);
    std::vector<float> values;
    for (size_t p = 0; p < vals.size();) {
        size_t q = vals.find(':', p);
        if (q == std::string::npos) q = vals.size();
        values.push_back(std::strtof(vals.substr(p, q - p).c_str(), nullptr));
        p = q + 1;
    }
    size_t si = 0;
    for (char k : op->kinds) {
        if (k == 't' || k == 'o') {
            ++op->tensors;
        } else if (k == 's') {
            if (si >= values.size()) return Fail("operator token: a value for every s");
            float v = values[si++];
            aclScalar *sc = aclCreateScalar(&v, ACL_FLOAT);
            if (!sc) return Ok("aclCreateScalar", -1);
            op->scalars.push_back(sc);
        } else {
            return Fail("operator token: kinds are t, o, s");
        }
    }
    if (op->kinds.size() > 10) return Fail("operator token: at most 10 parameters");
    // The operator library the program links with (-lopapi; a linker may have dropped it as
    // unreferenced, so it is opened by name as well, from the same run path).
    void *lib = dlopen("libopapi.so", RTLD_NOW | RTLD_GLOBAL);
    void *from = lib ? lib : RTLD_DEFAULT;
    op->phase1 = dlsym(from, (op->name + "GetWorkspaceSize").c_str());
    op->phase2 = dlsym(from, op->name.c_str());
    if (!op->phase1 || !op->phase2) return Fail("unknown op: not exported by the operator library");
    return true;
}

// Calls a function of n pointer parameters (every phase 1 parameter here is a pointer).
int CallPointers(void *f, void *const *a, size_t n)
{
    using P = void *;
    switch (n) {
    case 2: return reinterpret_cast<int (*)(P, P)>(f)(a[0], a[1]);
    case 3: return reinterpret_cast<int (*)(P, P, P)>(f)(a[0], a[1], a[2]);
    case 4: return reinterpret_cast<int (*)(P, P, P, P)>(f)(a[0], a[1], a[2], a[3]);
    case 5: return reinterpret_cast<int (*)(P, P, P, P, P)>(f)(a[0], a[1], a[2], a[3], a[4]);
    case 6: return reinterpret_cast<int (*)(P, P, P, P, P, P)>(f)(a[0], a[1], a[2], a[3], a[4], a[5]);
    case 7: return reinterpret_cast<int (*)(P, P, P, P, P, P, P)>(f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
    case 8:
        return reinterpret_cast<int (*)(P, P, P, P, P, P, P, P)>(f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    case 9:
        return reinterpret_cast<int (*)(P, P, P, P, P, P, P, P, P)>(f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6],
                                                                      a[7], a[8]);
    case 10:
        return reinterpret_cast<int (*)(P, P, P, P, P, P, P, P, P, P)>(f)(a[0], a[1], a[2], a[3], a[4], a[5],
                                                                         a[6], a[7], a[8], a[9]);
    case 11:
        return reinterpret_cast<int (*)(P, P, P, P, P, P, P, P, P, P, P)>(f)(a[0], a[1], a[2], a[3], a[4], a[5],
                                                                            a[6], a[7], a[8], a[9], a[10]);
    case 12:
        return reinterpret_cast<int (*)(P, P, P, P, P, P, P, P, P, P, P, P)>(f)(a[0], a[1], a[2], a[3], a[4], a[5],
                                                                               a[6], a[7], a[8], a[9], a[10], a[11]);
    default: return -1;
    }
}

typedef int (*Phase2Fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);

// One operator over one set of buffers; the argument list is built once.
struct OpCall {
    std::vector<void *> args;   // phase 1's arguments; the last two are filled per call
    void *phase1;
    Phase2Fn phase2;

    OpCall(const Operator &op, const Buffers *b) : phase1(op.phase1), phase2(reinterpret_cast<Phase2Fn>(op.phase2))
    {
        size_t ti = 0, si = 0;
        for (char k : op.kinds) {
            args.push_back(k == 's' ? static_cast<void *>(op.scalars[si++]) : static_cast<void *>(b->t[ti++]));
        }
        args.push_back(nullptr);
        args.push_back(nullptr);
    }
    int Phase1(uint64_t *ws, aclOpExecutor **ex)
    {
        args[args.size() - 2] = ws;
        args[args.size() - 1] = ex;
        return CallPointers(phase1, args.data(), args.size());
    }
    int Phase2(void *ws, uint64_t size, aclOpExecutor *ex, aclrtStream s) const { return phase2(ws, size, ex, s); }
};

void PrintStats(const char *key, const Stats &s)
{
    std::printf("\"%s\": {\"median_ns\": %.3f, \"min_ns\": %.3f, \"iters\": %ld, \"repeats\": %d}", key,
                s.medianNs, s.minNs, s.iters, s.repeats);
}

bool Run(const Options &o, aclrtStream stream, std::string *json)
{
    const double targetNs = o.targetMs * 1e6;
    std::vector<std::unique_ptr<Operator>> ops;
    bool ok = true;
    for (const std::string &tok : o.ops) {
        ops.emplace_back(new Operator);
        ok = ok && ParseOperator(tok, ops.back().get());
    }
    Workspace ws;
    char line[512];
    bool first = true;
    for (size_t di = 0; ok && di < o.dtypes.size(); ++di) {
        size_t itemsize = 0;
        aclDataType dt = AclDtype(o.dtypes[di], &itemsize);
        for (size_t si = 0; ok && si < o.sizes.size(); ++si) {
            for (size_t oi = 0; ok && oi < o.ops.size(); ++oi) {
                Buffers b;
                if (!MakeBuffers(o.sizes[si], dt, itemsize, ops[oi]->tensors, &b)) {
                    ok = false;
                    break;
                }
                OpCall call(*ops[oi], &b);
                Stats fresh, plan;
                ok = Measure(
                    [&](long k) {
                        for (long i = 0; i < k; ++i) {
                            uint64_t size = 0;
                            aclOpExecutor *ex = nullptr;
                            if (!Ok("phase 1", call.Phase1(&size, &ex))) return false;
                            if (!ws.Ensure(size)) return false;
                            if (!Ok("phase 2", call.Phase2(size ? ws.ptr : nullptr, size, ex, stream))) {
                                return false;
                            }
                            if (!Ok("aclrtSynchronizeStream", aclrtSynchronizeStream(stream))) return false;
                        }
                        return true;
                    },
                    o.repeat, targetNs, &fresh);
                if (!ok) break;
                uint64_t size = 0;
                aclOpExecutor *ex = nullptr;
                ok = Ok("phase 1", call.Phase1(&size, &ex)) &&
                     Ok("aclSetAclOpExecutorRepeatable", aclSetAclOpExecutorRepeatable(ex)) && ws.Ensure(size);
                if (ok) {
                    ok = Measure(
                        [&](long k) {
                            for (long i = 0; i < k; ++i) {
                                if (!Ok("phase 2", call.Phase2(size ? ws.ptr : nullptr, size, ex, stream))) {
                                    return false;
                                }
                                if (!Ok("aclrtSynchronizeStream", aclrtSynchronizeStream(stream))) return false;
                            }
                            return true;
                        },
                        o.repeat, targetNs, &plan);
                }
                // async: phase 2 only, one sync per batch (what the caller pays per call when it
                // does not wait; the worker runs the kernels meanwhile)
                Stats async;
                if (ok && o.sizes[si] <= kAsyncMaxSize) {
                    ok = Measure(
                        [&](long k) {
                            for (long i = 0; i < k; ++i) {
                                if (!Ok("phase 2", call.Phase2(size ? ws.ptr : nullptr, size, ex, stream))) {
                                    return false;
                                }
                            }
                            return Ok("aclrtSynchronizeStream", aclrtSynchronizeStream(stream));
                        },
                        o.repeat, targetNs, &async);
                }
                if (ex) aclDestroyAclOpExecutor(ex);
                if (!ok) break;
                std::snprintf(line, sizeof line, "%s\n  {\"op\": \"%s\", \"dtype\": \"%s\", \"size\": %lld, ",
                              first ? "" : ",", o.ops[oi].c_str(), o.dtypes[di].c_str(),
                              static_cast<long long>(o.sizes[si]));
                *json += line;
                std::snprintf(line, sizeof line,
                              "\"fresh\": {\"median_ns\": %.3f, \"min_ns\": %.3f, \"iters\": %ld, \"repeats\": %d}, "
                              "\"plan\": {\"median_ns\": %.3f, \"min_ns\": %.3f, \"iters\": %ld, \"repeats\": %d}}",
                              fresh.medianNs, fresh.minNs, fresh.iters, fresh.repeats, plan.medianNs, plan.minNs,
                              plan.iters, plan.repeats);
                *json += line;
                if (async.iters > 0) {
                    json->pop_back();
                    std::snprintf(line, sizeof line,
                                  ", \"plan_async\": {\"median_ns\": %.3f, \"min_ns\": %.3f, \"iters\": %ld, "
                                  "\"repeats\": %d}}",
                                  async.medianNs, async.minNs, async.iters, async.repeats);
                    *json += line;
                }
                first = false;
            }
        }
    }
    return ok;
}

// A usage error in serve mode (not from the API: no code, no recent error message).
bool Fail(const char *msg)
{
    if (g_error.empty()) g_error = msg;
    return false;
}

std::string TakeError()
{
    std::string msg;
    for (char c : g_error) msg += (c == '"' || c == '\\' || c == '\n') ? ' ' : c;
    g_error.clear();
    return msg;
}

// The state kept between serve-mode commands: the operators seen, the buffers of the last dtype
// and size (per operator) and a repeatable executor per operator on them (the bench alternates
// between the operators' cells).
struct Server {
    aclrtStream stream = nullptr;
    Workspace ws;
    std::string bufKey;
    std::map<std::string, std::unique_ptr<Operator>> ops;    // by token
    std::map<std::string, std::unique_ptr<Buffers>> bufs;    // by token, for bufKey
    struct Exec {
        aclOpExecutor *ex;
        uint64_t size;
    };
    std::map<std::string, Exec> execs;   // by token

    void DropExecutors()
    {
        for (auto &e : execs) aclDestroyAclOpExecutor(e.second.ex);
        execs.clear();
    }
    ~Server()
    {
        DropExecutors();
        bufs.clear();
        ops.clear();
    }
};

enum Mode { kFresh, kPlan, kPlanAsync, kAlloc };

// k allocations and releases of one n-element tensor (device memory and its aclTensor): what
// creating and dropping a small tensor costs from C, the operator aside.
bool AllocBatch(int64_t n, aclDataType dt, size_t itemsize, long k)
{
    int64_t shape[1] = {n};
    int64_t strides[1] = {1};
    size_t bytes = static_cast<size_t>(n) * itemsize;
    for (long i = 0; i < k; ++i) {
        void *p = nullptr;
        if (!Ok("aclrtMalloc", aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST))) return false;
        aclTensor *t = aclCreateTensor(shape, 1, dt, strides, 0, ACL_FORMAT_ND, shape, 1, p);
        if (!t) {
            aclrtFree(p);
            return Ok("aclCreateTensor", -1);
        }
        if (!Ok("aclDestroyTensor", aclDestroyTensor(t))) return false;
        if (!Ok("aclrtFree", aclrtFree(p))) return false;
    }
    return true;
}

// One batch of k calls in the given mode (all calls' results are ready when it returns).
bool Batch(Server &sv, OpCall &call, const Server::Exec *plan, Mode mode, long k)
{
    if (mode == kFresh) {
        for (long i = 0; i < k; ++i) {
            uint64_t size = 0;
            aclOpExecutor *ex = nullptr;
            if (!Ok("phase 1", call.Phase1(&size, &ex))) return false;
            if (!sv.ws.Ensure(size)) return false;
            if (!Ok("phase 2", call.Phase2(size ? sv.ws.ptr : nullptr, size, ex, sv.stream))) return false;
            if (!Ok("aclrtSynchronizeStream", aclrtSynchronizeStream(sv.stream))) return false;
        }
        return true;
    }
    void *wsPtr = plan->size ? sv.ws.ptr : nullptr;
    for (long i = 0; i < k; ++i) {
        if (!Ok("phase 2", call.Phase2(wsPtr, plan->size, plan->ex, sv.stream))) return false;
        if (mode == kPlan && !Ok("aclrtSynchronizeStream", aclrtSynchronizeStream(sv.stream))) return false;
    }
    return mode == kPlan || Ok("aclrtSynchronizeStream", aclrtSynchronizeStream(sv.stream));
}

// k == 0: picks the count k so that run(k) lasts about targetNs and answers {"iters", "calib_ns"};
// else times one run(k) and answers {"ns": per call, "iters"}.
template <typename Run>
bool TimeOrCalibrate(Run run, long k, double targetNs, std::string *out)
{
    char line[256];
    if (k == 0) {
        double perCall = 0;
        for (k = 1;; k *= 8) {
            int64_t t0 = NowNs();
            if (!run(k)) return false;
            double el = static_cast<double>(NowNs() - t0);
            perCall = el / static_cast<double>(k);
            if (el >= targetNs / 8 || k >= (1L << 30)) break;
        }
        k = std::max(1L, static_cast<long>(targetNs / std::max(perCall, 1.0)));
        std::snprintf(line, sizeof line, "{\"iters\": %ld, \"calib_ns\": %.3f}", k, perCall);
    } else {
        int64_t t0 = NowNs();
        if (!run(k)) return false;
        double el = static_cast<double>(NowNs() - t0);
        std::snprintf(line, sizeof line, "{\"ns\": %.3f, \"iters\": %ld}", el / static_cast<double>(k), k);
    }
    *out = line;
    return true;
}

// Handles "cell op dtype size mode k target-ms"; writes the answer (without newline) to out.
bool Cell(Server &sv, const std::vector<std::string> &w, std::string *out)
{
    if (w.size() != 7) return Fail("cell: expected 6 arguments");
    const std::string &op = w[1], &dname = w[2], &mname = w[4];
    int64_t n = std::strtoll(w[3].c_str(), nullptr, 10);
    long k = std::strtol(w[5].c_str(), nullptr, 10);
    double targetNs = std::atof(w[6].c_str()) * 1e6;
    auto oit = sv.ops.find(op);
    if (oit == sv.ops.end()) {
        std::unique_ptr<Operator> parsed(new Operator);
        if (!ParseOperator(op, parsed.get())) return false;
        oit = sv.ops.insert(std::make_pair(op, std::move(parsed))).first;
    }
    const Operator &oper = *oit->second;
    if (dname != "float32" && dname != "float16" && dname != "bfloat16") return Fail("cell: unknown dtype");
    if (n <= 0 || k < 0 || (k == 0 && !(targetNs > 0))) return Fail("cell: bad size, count or target");
    Mode mode = mname == "fresh" ? kFresh : mname == "plan" ? kPlan : mname == "alloc" ? kAlloc : kPlanAsync;
    if (mname != "fresh" && mname != "plan" && mname != "plan_async" && mname != "alloc") {
        return Fail("cell: unknown mode");
    }
    size_t itemsize = 0;
    aclDataType dt = AclDtype(dname, &itemsize);
    if (mode == kAlloc) {
        if (!AllocBatch(n, dt, itemsize, 1)) return false;   // warm-up
        return TimeOrCalibrate([&](long m) { return AllocBatch(n, dt, itemsize, m); }, k, targetNs, out);
    }
    std::string bufKey = dname + " " + w[3];
    if (sv.bufKey != bufKey) {
        sv.DropExecutors();   // they refer to the old tensors
        sv.bufs.clear();
        sv.bufKey = bufKey;
    }
    auto bit = sv.bufs.find(op);
    if (bit == sv.bufs.end()) {
        std::unique_ptr<Buffers> b(new Buffers);
        if (!MakeBuffers(n, dt, itemsize, oper.tensors, b.get())) return false;
        bit = sv.bufs.insert(std::make_pair(op, std::move(b))).first;
    }
    OpCall call(oper, bit->second.get());
    const Server::Exec *plan = nullptr;
    if (mode != kFresh) {
        auto it = sv.execs.find(op);
        if (it == sv.execs.end()) {
            uint64_t size = 0;
            aclOpExecutor *ex = nullptr;
            if (!Ok("phase 1", call.Phase1(&size, &ex))) return false;
            if (!Ok("aclSetAclOpExecutorRepeatable", aclSetAclOpExecutorRepeatable(ex))) {
                aclDestroyAclOpExecutor(ex);
                return false;
            }
            it = sv.execs.insert(std::make_pair(op, Server::Exec{ex, size})).first;
        }
        plan = &it->second;
        if (!sv.ws.Ensure(plan->size)) return false;
    }
    if (!Batch(sv, call, plan, mode, 1)) return false;   // warm-up
    return TimeOrCalibrate([&](long m) { return Batch(sv, call, plan, mode, m); }, k, targetNs, out);
}

// Serve mode: one command per stdin line, one JSON answer per stdout line; ends on "quit"/EOF.
int Serve(aclrtStream stream)
{
    Server sv;
    sv.stream = stream;
    char buf[1024];
    while (std::fgets(buf, sizeof buf, stdin)) {
        std::vector<std::string> w;
        std::string cur;
        for (const char *p = buf; *p; ++p) {
            if (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') {
                if (!cur.empty()) w.push_back(cur);
                cur.clear();
            } else {
                cur += *p;
            }
        }
        if (!cur.empty()) w.push_back(cur);
        if (w.empty()) continue;
        if (w[0] == "quit") break;
        std::string answer;
        bool ok;
        if (w[0] == "cell") {
            ok = Cell(sv, w, &answer);
        } else if (w[0] == "trivial" && w.size() == 3) {
            Stats st;
            int32_t dev = -1;
            ok = Measure(
                [&](long k) {
                    for (long i = 0; i < k; ++i) {
                        if (aclrtGetDevice(&dev) != 0) return Ok("aclrtGetDevice", -1);
                        __asm__ __volatile__("" : : "r"(&dev) : "memory");
                    }
                    return true;
                },
                std::max(1, std::atoi(w[1].c_str())), std::max(0.001, std::atof(w[2].c_str())) * 1e6, &st);
            char line[256];
            std::snprintf(line, sizeof line, "{\"median_ns\": %.3f, \"min_ns\": %.3f, \"iters\": %ld, \"repeats\": %d}",
                          st.medianNs, st.minNs, st.iters, st.repeats);
            answer = line;
        } else {
            ok = Fail("unknown command");
        }
        if (ok) {
            std::printf("%s\n", answer.c_str());
        } else {
            if (g_error.empty()) g_error = "failed";
            std::printf("{\"error\": \"%s\"}\n", TakeError().c_str());
        }
        std::fflush(stdout);
    }
    return 0;
}

bool ParseArgs(int argc, char **argv, Options *o)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string k = argv[i];
        const char *v = argv[i + 1];
        if (k == "--sizes") {
            o->sizes.clear();
            for (const std::string &s : Split(v)) o->sizes.push_back(std::strtoll(s.c_str(), nullptr, 10));
        } else if (k == "--dtypes") {
            o->dtypes = Split(v);
        } else if (k == "--ops") {
            o->ops = Split(v);
        } else if (k == "--repeat") {
            o->repeat = std::max(1, std::atoi(v));
        } else if (k == "--target-ms") {
            o->targetMs = std::max(0.001, std::atof(v));
        } else {
            return false;
        }
    }
    return argc % 2 == 1;
}

}  // namespace

int main(int argc, char **argv)
{
    Options o;
    const bool serve = argc == 2 && std::strcmp(argv[1], "--serve") == 0;
    if (!serve && !ParseArgs(argc, argv, &o)) {
        std::fprintf(stderr, "usage: %s [--sizes N,..] [--dtypes ..] [--ops ..] [--repeat N] [--target-ms MS] | --serve\n",
                     argv[0]);
        return 2;
    }
    aclrtStream stream = nullptr;
    bool ok = Ok("aclInit", aclInit(nullptr)) && Ok("aclrtSetDevice", aclrtSetDevice(0)) &&
              Ok("aclrtCreateStream", aclrtCreateStream(&stream));
    if (serve) {
        int rc = 1;
        if (ok) {
            rc = Serve(stream);
        } else {
            std::printf("{\"error\": \"%s\"}\n", TakeError().c_str());
        }
        if (stream) aclrtDestroyStream(stream);
        aclrtResetDevice(0);
        aclFinalize();
        return rc;
    }
    Stats trivial;
    std::string results;
    if (ok) {
        int32_t dev = -1;
        ok = Measure(
            [&](long k) {
                for (long i = 0; i < k; ++i) {
                    if (aclrtGetDevice(&dev) != 0) return Ok("aclrtGetDevice", -1);
                    // keep the compiler from merging or hoisting the calls
                    __asm__ __volatile__("" : : "r"(&dev) : "memory");
                }
                return true;
            },
            o.repeat, o.targetMs * 1e6, &trivial);
    }
    ok = ok && Run(o, stream, &results);
    if (stream) aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (!ok) {
        std::printf("{\"error\": \"%s\"}\n", TakeError().c_str());
        return 1;
    }
    std::printf("{");
    PrintStats("trivial_call", trivial);
    std::printf(",\n \"results\": [%s\n]}\n", results.c_str());
    return 0;
}
