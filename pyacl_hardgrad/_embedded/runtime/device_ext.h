/* Float saturation mode and overflow status of the embedded devices (device_ext.c), read by the
 * tasks that compute in floating point (reduce.c). */
#ifndef PYACL_HARDGRAD_RT_DEVICE_EXT_H_
#define PYACL_HARDGRAD_RT_DEVICE_EXT_H_

#include <stdbool.h>

#include "acl/acl.h"

/* The device's aclrtFloatOverflowMode (ACL_RT_OVERFLOW_MODE_INFNAN until aclrtSetDeviceSatMode). */
aclrtFloatOverflowMode hg_sat_mode(int dev);
/* A task with overflow checking on produced an overflow on dev: aclrtGetOverflowStatus reports it
 * until aclrtResetOverflowStatus. */
void hg_overflow_raise(int dev);
/* The stream's overflow switch (aclrtSetStreamOverflowSwitch); false with *rc set for a bad handle. */
bool hg_stream_overflow_switch(aclrtStream stream, const char *func, aclError *rc);

/* The limit of `type` of the stream the calling thread uses (aclrtUseStreamResInCurrentThread);
 * false when it uses none or the stream sets no such limit. */
bool hg_thread_stream_res(aclrtDevResLimitType type, uint32_t *value);

#endif /* PYACL_HARDGRAD_RT_DEVICE_EXT_H_ */
