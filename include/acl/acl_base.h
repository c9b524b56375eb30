/*
 * pyacl_hardgrad: base header of the ACL C API.  It only gathers the pieces, in CANN's
 * order: the runtime base (types, status codes, data buffers, fp16 helpers), the model
 * base, and the runtime and graph-engine status codes.
 */
#ifndef PYACL_HARDGRAD_ACL_ACL_BASE_H_
#define PYACL_HARDGRAD_ACL_ACL_BASE_H_

#include "acl/acl_base_rt.h"
#include "acl/acl_base_mdl.h"
#include "error_codes/rt_error_codes.h"
#include "error_codes/ge_error_codes.h"

#endif /* PYACL_HARDGRAD_ACL_ACL_BASE_H_ */
