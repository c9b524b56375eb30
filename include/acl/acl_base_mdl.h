/*
 * pyacl_hardgrad: base declarations of the model API.  The embedded runtime runs no
 * offline models, so nothing is declared here; the file exists because CANN's
 * acl/acl_base.h includes it.
 */
#ifndef PYACL_HARDGRAD_ACL_ACL_BASE_MDL_H_
#define PYACL_HARDGRAD_ACL_ACL_BASE_MDL_H_

#endif /* PYACL_HARDGRAD_ACL_ACL_BASE_MDL_H_ */
