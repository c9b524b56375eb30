/*
 * pyacl_hardgrad: the single-operator API of ACL.  Operators are reached through the
 * aclnn headers (aclnnop/); this file is empty and exists because CANN's acl/acl.h
 * includes it.
 */
#ifndef PYACL_HARDGRAD_ACL_ACL_OP_H_
#define PYACL_HARDGRAD_ACL_ACL_OP_H_

#endif /* PYACL_HARDGRAD_ACL_ACL_OP_H_ */
