/*
 * pyacl_hardgrad: the model API of ACL.  The embedded runtime runs no offline models;
 * this file is empty and exists because CANN's acl/acl.h includes it.
 */
#ifndef PYACL_HARDGRAD_ACL_ACL_MDL_H_
#define PYACL_HARDGRAD_ACL_ACL_MDL_H_

#endif /* PYACL_HARDGRAD_ACL_ACL_MDL_H_ */
