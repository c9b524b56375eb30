/* Fault injection for the Python layer's error paths: a shared library bound by the binding
 * (lib.hgb_bind) in front of the embedded runtime.  It forwards phase 2 of both operators and
 * aclrtSynchronizeStream to the real functions, and fails them on demand:
 *   fault_fail_launch != 0  -> both phase-2 calls return 561103 without launching;
 *   fault_fail_sync    = n  -> the next n waits wait, then report 507011.
 * Built as a shared object by tests/test_py_fused_faults.py. */
#include <dlfcn.h>
#include <stdint.h>

/* the real prototypes: the definitions below are checked against them */
#include "acl/acl.h"
#include "aclnnop/aclnn_hardsigmoid_backward.h"
#include "aclnnop/aclnn_hardtanh_backward.h"

typedef aclError (*sync_fn)(aclrtStream stream);
typedef aclnnStatus (*launch_fn)(void *workspace, uint64_t size, aclOpExecutor *executor, aclrtStream stream);

static sync_fn real_sync;
static launch_fn real_hardtanh, real_hardsigmoid;

int fault_fail_launch;
int fault_fail_sync;

void fault_init(void *ascendcl, void *opapi)
{
    real_sync = (sync_fn)dlsym(ascendcl, "aclrtSynchronizeStream");
    real_hardtanh = (launch_fn)dlsym(opapi, "aclnnHardtanhBackward");
    real_hardsigmoid = (launch_fn)dlsym(opapi, "aclnnHardsigmoidBackward");
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

aclnnStatus aclnnHardtanhBackward(void *workspace, uint64_t size, aclOpExecutor *executor, aclrtStream stream)
{
    return fault_fail_launch ? 561103 : real_hardtanh(workspace, size, executor, stream);
}

aclnnStatus aclnnHardsigmoidBackward(void *workspace, uint64_t size, aclOpExecutor *executor, aclrtStream stream)
{
    return fault_fail_launch ? 561103 : real_hardsigmoid(workspace, size, executor, stream);
}
