/*
 * pyacl_hardgrad: aclnnHardtanhBackward, the gradient of hardtanh.
 * out = gradOutput where min < self < max (or self is NaN), else 0.
 */
#ifndef PYACL_HARDGRAD_ACLNNOP_HARDTANH_BACKWARD_H_
#define PYACL_HARDGRAD_ACLNNOP_HARDTANH_BACKWARD_H_

#include "../aclnn/aclnn_base.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

/* Phase 1: validate, plan, report the workspace size and hand out an executor. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardtanhBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                                      const aclTensor *self,
                                                                      const aclScalar *min,
                                                                      const aclScalar *max, aclTensor *out,
                                                                      uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor);

/* Phase 2: enqueue the planned work on stream and return at once. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardtanhBackward(void *workspace, uint64_t workspaceSize,
                                                      aclOpExecutor *executor, aclrtStream stream);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_ACLNNOP_HARDTANH_BACKWARD_H_ */
