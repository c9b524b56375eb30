/*
 * pyacl_hardgrad: tensor, scalar and executor handles of the aclnn operator API.
 * Names, values and prototypes follow CANN's public ABI.
 */
#ifndef PYACL_HARDGRAD_ACLNN_ACL_META_H_
#define PYACL_HARDGRAD_ACLNN_ACL_META_H_

#include "../acl/acl_base.h"
#include "../opdev/op_errno.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;

typedef int32_t aclnnStatus;

/* ACLNN_SUCCESS, ACLNN_ERR_*: opdev/op_errno.h (included above) */

/* Tensor descriptor over device memory: view shape, strides and offset in elements,
 * storage shape of the whole allocation.  Returns NULL on a malformed descriptor and
 * leaves the reason in aclGetRecentErrMsg(). */
ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum,
                                               aclDataType dataType, const int64_t *stride, int64_t offset,
                                               aclFormat format, const int64_t *storageDims,
                                               uint64_t storageDimsNum, void *tensorData);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor *tensor);

/* Scalar holding a copy of *value interpreted as dataType. */
ACL_FUNC_VISIBILITY aclScalar *aclCreateScalar(void *value, aclDataType dataType);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalar(const aclScalar *scalar);

ACL_FUNC_VISIBILITY aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType);
ACL_FUNC_VISIBILITY aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format);
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset);

/* Executors: one run each, unless made repeatable right after phase 1. */
ACL_FUNC_VISIBILITY aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_ACLNN_ACL_META_H_ */
