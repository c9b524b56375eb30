/*
 * pyacl_hardgrad: aclnnHardsigmoidBackward, the gradient of hardsigmoid.
 * out = gradOutput / 6 where 0 < self / 6 + 1/2 < 1, else 0, in the promoted dtype.
 */
#ifndef PYACL_HARDGRAD_ACLNNOP_HARDSIGMOID_BACKWARD_H_
#define PYACL_HARDGRAD_ACLNNOP_HARDSIGMOID_BACKWARD_H_

#include "../aclnn/aclnn_base.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

/* Phase 1: validate, plan, report the workspace size and hand out an executor. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardsigmoidBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                         const aclTensor *self, aclTensor *out,
                                                                         uint64_t *workspaceSize,
                                                                         aclOpExecutor **executor);

/* Phase 2: enqueue the planned work on stream and return at once. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardsigmoidBackward(void *workspace, uint64_t workspaceSize,
                                                         aclOpExecutor *executor, aclrtStream stream);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_ACLNNOP_HARDSIGMOID_BACKWARD_H_ */
