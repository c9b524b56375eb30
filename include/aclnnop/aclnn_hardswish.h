/*
 * pyacl_hardgrad: aclnnHardswish and aclnnInplaceHardswish.
 * out = self * min(max(self + 3, 0), 6) / 6: self for self >= 3, 0 for self <= -3.
 * (out is a const aclTensor * in CANN's prototype, as here; it is written.)
 */
#ifndef PYACL_HARDGRAD_ACLNNOP_HARDSWISH_H_
#define PYACL_HARDGRAD_ACLNNOP_HARDSWISH_H_

#include "../aclnn/aclnn_base.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

/* Phase 1: validate, plan, report the workspace size and hand out an executor. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardswishGetWorkspaceSize(const aclTensor *self, const aclTensor *out,
                                                               uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: enqueue the planned work on stream and return at once. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardswish(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

/* In place: the result is written back into self. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceHardswishGetWorkspaceSize(const aclTensor *self,
                                                                      uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor);

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceHardswish(void *workspace, uint64_t workspaceSize,
                                                      aclOpExecutor *executor, aclrtStream stream);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_ACLNNOP_HARDSWISH_H_ */
