/* Fault injection for the Python layer's error paths: a shared library bound by the binding
 * (lib.hgb_bind) in front of the embedded runtime.  It forwards aclrtSynchronizeStream and
 * phase 2 of the operators to the real functions, and fails them on demand:
 *   fault_fail_launch != 0  -> every wrapped phase-2 call returns 561103 without launching;
 *   fault_fail_sync    = n  -> the next n waits wait, then report 507011.
 * Operator-independent: tests/test_py_fused_faults.py compiles it with one
 * FAULT_PHASE2(aclnnXxx) line per discovered operator after including every operator header
 * of include/aclnnop, so each wrapper is checked against the real prototype. */
#include <dlfcn.h>
#include <stdint.h>

#include "acl/acl.h"

typedef aclError (*sync_fn)(aclrtStream stream);
typedef aclnnStatus (*launch_fn)(void *workspace, uint64_t size, aclOpExecutor *executor, aclrtStream stream);

static sync_fn real_sync;
static void *g_opapi;

int fault_fail_launch;
int fault_fail_sync;

void fault_init(void *ascendcl, void *opapi)
{
    real_sync = (sync_fn)dlsym(ascendcl, "aclrtSynchronizeStream");
    g_opapi = opapi;
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
    int rc = real_sync(stream);
    if (fault_fail_sync > 0) {
        fault_fail_sync--;
        return 507011; /* the work has finished; the wait reports a failure anyway */
    }
    return rc;
}

/* Phase 2 of `name`, forwarded to the real one (looked up on first use) unless faults are on. */
#define FAULT_PHASE2(name)                                                                               \
    aclnnStatus name(void *workspace, uint64_t size, aclOpExecutor *executor, aclrtStream stream)       \
    {                                                                                                    \
        static launch_fn real_;                                                                          \
        if (!real_)                                                                                      \
            real_ = (launch_fn)dlsym(g_opapi, #name);                                                    \
        return fault_fail_launch ? 561103 : real_(workspace, size, executor, stream);                    \
    }
