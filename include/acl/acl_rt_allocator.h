/*
 * pyacl_hardgrad: function types of CANN's custom-allocator interface.  The embedded
 * runtime does not take external allocators, so only the types are declared.
 */
#ifndef PYACL_HARDGRAD_ACL_ACL_RT_ALLOCATOR_H_
#define PYACL_HARDGRAD_ACL_ACL_RT_ALLOCATOR_H_

#include "acl_base.h"

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
extern "C" {
#endif

typedef void *(*aclrtAllocatorAllocFunc)(aclrtAllocator allocator, size_t size);
typedef void (*aclrtAllocatorFreeFunc)(aclrtAllocator allocator, aclrtAllocatorBlock block);
typedef void *(*aclrtAllocatorAllocAdviseFunc)(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr);
typedef void *(*aclrtAllocatorGetAddrFromBlockFunc)(aclrtAllocatorBlock block);

#if defined(__cplusplus) && !defined(PYACL_HARDGRAD_CDEF)
}
#endif

#endif /* PYACL_HARDGRAD_ACL_ACL_RT_ALLOCATOR_H_ */
