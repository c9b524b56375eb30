/*
 * pyacl_hardgrad: base header the aclnn operator headers include.
 */
#ifndef PYACL_HARDGRAD_ACLNN_ACLNN_BASE_H_
#define PYACL_HARDGRAD_ACLNN_ACLNN_BASE_H_

#include "acl_meta.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

/* Optional library set-up and tear-down of the operator API; both may be skipped. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_ACLNN_ACLNN_BASE_H_ */
