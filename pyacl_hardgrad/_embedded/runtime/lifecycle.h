/* Init and finalize callbacks (aclInitCallbackRegister, aclFinalizeCallbackRegister): what
 * aclInit and aclFinalize (init.c) run, in CANN's order of the registration types. */
#ifndef PYACL_HARDGRAD_RT_LIFECYCLE_H_
#define PYACL_HARDGRAD_RT_LIFECYCLE_H_

#include <stdbool.h>
#include <stddef.h>

#include "acl/acl.h"

/* Run the init callbacks aclInit runs (types ACL_MODEL, ACL_OP_EXECUTOR, ACL_DVPP, OTHER, in that
 * order; each type's in registration order) with the configuration file's text; the first
 * failure stops them and is returned.  Called by aclInit without hg_rt.mu held. */
aclError hg_run_init_callbacks(const char *config, size_t len);
/* Same for aclFinalize (types ACL_OP_COMPILER, ACL_MODEL, ACL_DVPP, OTHER). */
aclError hg_run_finalize_callbacks(void);
/* aclInit has succeeded / aclFinalize has finished: a callback registered while the runtime is
 * initialised runs at once, with the configuration text kept here (copied). */
void hg_lifecycle_initialised(const char *config, size_t len);
void hg_lifecycle_finalized(void);

#endif /* PYACL_HARDGRAD_RT_LIFECYCLE_H_ */
