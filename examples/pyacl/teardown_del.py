"""pyACL-style program: resources owned by objects and released in ``__del__``.

The layout of acllite and many pyACL applications: a resource class initialises ACL and
makes a context and a stream, buffer objects allocate device memory and record it with the
resource, and every release happens in ``__del__``: a buffer frees its memory when it goes
away, and the resource first frees what is still recorded, then its own handles.  At
interpreter exit the garbage collector finalizes the remaining objects in no fixed order (and
clears weak references first), so the record is a plain dict both sides consult: either
order gives the same releases.  Each release prints its ``ret``.

Run without an NPU:  python -m pyacl_hardgrad run examples/pyacl/teardown_del.py
"""
import sys

import acl

ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2


class AclResource:
    def __init__(self, device_id=0):
        self.device_id = device_id
        ret = acl.init()
        if ret not in (0, 100002):          # 100002: already initialised, as acllite accepts
            raise RuntimeError("acl.init failed, ret=%d" % ret)
        self.ret_set = acl.rt.set_device(device_id)
        self.context, self.ret_ctx = acl.rt.create_context(device_id)
        self.stream, self.ret_stream = acl.rt.create_stream()
        self.run_mode, _ = acl.rt.get_run_mode()
        self.allocations = {}                # device pointer -> size, while allocated

    def free(self, ptr):
        size = self.allocations.pop(ptr, None)
        if size is not None:
            print("free %d bytes:" % size, acl.rt.free(ptr))

    def __del__(self):
        for ptr in list(self.allocations):
            self.free(ptr)
        print("destroy_stream:", acl.rt.destroy_stream(self.stream))
        print("destroy_context:", acl.rt.destroy_context(self.context))
        print("reset_device:", acl.rt.reset_device(self.device_id))
        print("finalize:", acl.finalize())


class DeviceBuffer:
    def __init__(self, resource, data):
        self.resource = resource
        self.size = len(data)
        self.ptr, ret = acl.rt.malloc(self.size, ACL_MEM_MALLOC_HUGE_FIRST)
        if ret:
            raise RuntimeError("acl.rt.malloc failed, ret=%d" % ret)
        resource.allocations[self.ptr] = self.size
        acl.rt.memcpy(self.ptr, self.size, acl.util.bytes_to_ptr(data), self.size, ACL_MEMCPY_HOST_TO_DEVICE)

    def read(self):
        host, _ = acl.rt.malloc_host(self.size)
        acl.rt.memcpy(host, self.size, self.ptr, self.size, ACL_MEMCPY_DEVICE_TO_HOST)
        data = acl.util.ptr_to_bytes(host, self.size)
        acl.rt.free_host(host)
        return data

    def __del__(self):
        self.resource.free(self.ptr)


resource = AclResource()
print("run mode:", resource.run_mode, "(1: the host drives the device)")
kept = DeviceBuffer(resource, b"kept until exit")
temporary = DeviceBuffer(resource, b"dropped early")
print("read back:", temporary.read())
del temporary                               # __del__ now
print("still readable:", kept.read())
sys.stdout.flush()
# `kept` and `resource` are released by __del__ at interpreter exit.
