/* aclnnInit / aclnnFinalize: the embedded operators need no set-up (no kernel
 * packages to load, no device binaries), so both succeed and do nothing; calling
 * them any number of times, or never, is fine. */
#include "hg_internal.h"
#include "aclnn/aclnn_base.h"

aclnnStatus aclnnInit(const char *configPath)
{
    (void)configPath;
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnFinalize(void)
{
    return ACLNN_SUCCESS;
}
