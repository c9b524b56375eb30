/*
 * pyacl_hardgrad: entry header of the ACL C API, as CANN's samples include it.
 */
#ifndef PYACL_HARDGRAD_ACL_ACL_H_
#define PYACL_HARDGRAD_ACL_ACL_H_

#include "acl_rt.h"
#include "acl_op.h"
#include "acl_mdl.h"

#endif /* PYACL_HARDGRAD_ACL_ACL_H_ */
