/*
 * pyacl_hardgrad: aclnnHardswishBackward, the gradient of hardswish.
 * out = gradOutput * (0 for self < -3, self/3 + 1/2 for -3 <= self <= 3, 1 for self > 3).
 */
#ifndef PYACL_HARDGRAD_ACLNNOP_HARDSWISH_BACKWARD_H_
#define PYACL_HARDGRAD_ACLNNOP_HARDSWISH_BACKWARD_H_

#include "../aclnn/aclnn_base.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

/* Phase 1: validate, plan, report the workspace size and hand out an executor. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardswishBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                       const aclTensor *self, aclTensor *out,
                                                                       uint64_t *workspaceSize,
                                                                       aclOpExecutor **executor);

/* Phase 2: enqueue the planned work on stream and return at once. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardswishBackward(void *workspace, uint64_t workspaceSize,
                                                       aclOpExecutor *executor, const aclrtStream stream);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_ACLNNOP_HARDSWISH_BACKWARD_H_ */
