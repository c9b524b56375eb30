/* The pattern of every call the embedded runtime answers with ACL_ERROR_RT_FEATURE_NOT_SUPPORT
 * (207000): the call sets the thread's last error and the text of aclGetRecentErrMsg to its own
 * name and the reason, and touches none of its arguments.
 *
 * HG_UNSUPPORTED(name, why, (params), uses) defines `aclError name(params)`;
 * HG_UNSUPPORTED_VALUE(type, name, why, value, (params), uses) defines `type name(params)`
 * answering `value` (NULL, 0, an "undefined" enumerator: what CANN answers on failure) for
 * calls that do not return an aclError.
 *
 * pyacl_hardgrad/_build/runtime_coverage.py reads these two forms (and the reason strings
 * they name) from the sources to write docs/runtime-coverage.md. */
#ifndef PYACL_HARDGRAD_RT_UNSUPPORTED_H_
#define PYACL_HARDGRAD_RT_UNSUPPORTED_H_

#include "rt_internal.h"

static inline aclError hg_unsupported(const char *func, const char *why)
{
    hg_set_error(func, "%s", why);
    return hg_rt_ret(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
}

#define HG_UNSUPPORTED(name, why, params, uses) \
    ACL_FUNC_VISIBILITY aclError name params   \
    {                                          \
        uses;                                  \
        return hg_unsupported(#name, why);     \
    }

#define HG_UNSUPPORTED_VALUE(type, name, why, value, params, uses) \
    ACL_FUNC_VISIBILITY type name params                           \
    {                                                              \
        uses;                                                      \
        (void)hg_unsupported(#name, why);                          \
        return value;                                              \
    }

#endif /* PYACL_HARDGRAD_RT_UNSUPPORTED_H_ */
