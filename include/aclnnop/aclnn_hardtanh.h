/*
 * pyacl_hardgrad: aclnnHardtanh and aclnnInplaceHardtanh.
 * out = min(max(self, clipValueMin), clipValueMax), in self's dtype.
 */
#ifndef PYACL_HARDGRAD_ACLNNOP_HARDTANH_H_
#define PYACL_HARDGRAD_ACLNNOP_HARDTANH_H_

#include "../aclnn/aclnn_base.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

/* Phase 1: validate, plan, report the workspace size and hand out an executor. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardtanhGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin,
                                                              const aclScalar *clipValueMax, aclTensor *out,
                                                              uint64_t *workspaceSize, aclOpExecutor **executor);

/* Phase 2: enqueue the planned work on stream and return at once. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnHardtanh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              aclrtStream stream);

/* In place: the result is written back into selfRef. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceHardtanhGetWorkspaceSize(aclTensor *selfRef,
                                                                     const aclScalar *clipValueMin,
                                                                     const aclScalar *clipValueMax,
                                                                     uint64_t *workspaceSize,
                                                                     aclOpExecutor **executor);

ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceHardtanh(void *workspace, uint64_t workspaceSize,
                                                     aclOpExecutor *executor, aclrtStream stream);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_ACLNNOP_HARDTANH_H_ */
