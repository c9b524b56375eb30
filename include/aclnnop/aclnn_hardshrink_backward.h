/*
 * pyacl_hardgrad: aclnnHardshrinkBackward, the gradient of hardshrink.
 * gradInput = 0 where |self| <= lambd, else gradOutput (gradOutput and self broadcast).
 */
#ifndef PYACL_HARDGRAD_ACLNNOP_HARDSHRINK_BACKWARD_H_
#define PYACL_HARDGRAD_ACLNNOP_HARDSHRINK_BACKWARD_H_

#include "../aclnn/aclnn_base.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

/* Phase 1: validate, plan, report the workspace size and hand out an executor. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardshrinkBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                        const aclTensor *self,
                                                                        const aclScalar *lambd, aclTensor *gradInput,
                                                                        uint64_t *workspaceSize,
                                                                        aclOpExecutor **executor);

/* Phase 2: enqueue the planned work on stream and return at once. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardshrinkBackward(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor, aclrtStream stream);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_ACLNNOP_HARDSHRINK_BACKWARD_H_ */
