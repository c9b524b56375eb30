/*
 * pyacl_hardgrad: aclnnHardsigmoid and aclnnInplaceHardsigmoid.
 * out = min(max(self / 6 + 1/2, 0), 1): 0 for self <= -3, 1 for self >= 3.
 */
#ifndef PYACL_HARDGRAD_ACLNNOP_HARDSIGMOID_H_
#define PYACL_HARDGRAD_ACLNNOP_HARDSIGMOID_H_

#include "../aclnn/aclnn_base.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

/* Phase 1: validate, plan, report the workspace size and hand out an executor. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardsigmoidGetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                                                 uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: enqueue the planned work on stream and return at once. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardsigmoid(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

/* In place: the result is written back into self. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceHardsigmoidGetWorkspaceSize(const aclTensor *self,
                                                                        uint64_t *workspaceSize,
                                                                        aclOpExecutor **executor);

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceHardsigmoid(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor, aclrtStream stream);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_ACLNNOP_HARDSIGMOID_H_ */
