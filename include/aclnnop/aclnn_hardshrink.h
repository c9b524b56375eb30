/*
 * pyacl_hardgrad: aclnnHardshrink.
 * out = 0 where |self| <= lambd, else self.
 */
#ifndef PYACL_HARDGRAD_ACLNNOP_HARDSHRINK_H_
#define PYACL_HARDGRAD_ACLNNOP_HARDSHRINK_H_

#include "../aclnn/aclnn_base.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

/* Phase 1: validate, plan, report the workspace size and hand out an executor. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardshrinkGetWorkspaceSize(const aclTensor *self, const aclScalar *lambd,
                                                                aclTensor *out, uint64_t *workspaceSize,
                                                                aclOpExecutor **executor);

/* Phase 2: enqueue the planned work on stream and return at once. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardshrink(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_ACLNNOP_HARDSHRINK_H_ */
