/*
 * pyacl_hardgrad: entry header of the ACL C API, as CANN's samples include it.
 */
#ifndef PYACL_HARDGRAD_ACL_ACL_H_
#define PYACL_HARDGRAD_ACL_ACL_H_

#include "acl_base.h"
#include "acl_rt.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 0
#define ACL_PATCH_VERSION 0

/* Initialise the ACL library; configPath may be NULL.  A second call returns
 * ACL_ERROR_REPEAT_INITIALIZE, which callers treat as "already initialised". */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize(void);
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_ACL_ACL_H_ */
