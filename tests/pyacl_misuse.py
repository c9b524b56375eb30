"""Seeded misuse through pyACL (`import acl`), one case per checking-mode kind that pyACL can
reach (an executor needs aclnn, which pyACL does not wrap).  `python pyacl_misuse.py CASE` runs
the misuse; `CASE_clean` the same program without it.  The line each finding's site names (for a
leak: where the object was made) ends with the comment "# misuse" (tests/test_check_mode.py)."""
import sys
import threading

import acl
import numpy as np

N = 4096
H2D, D2H, D2D = 1, 2, 3


def ok(ret: int) -> None:
    if ret != 0:
        raise SystemExit(f"unexpected status {ret}: {acl.get_recent_err_msg()}")


def alloc(size: int = N) -> int:
    ptr, ret = acl.rt.malloc(size, 0)
    ok(ret)
    return int(ptr)


def filled(size: int = N) -> int:
    ptr = alloc(size)
    ok(acl.rt.memset(ptr, size, 1, size))
    return int(ptr)


def stream() -> int:
    s, ret = acl.rt.create_stream()
    ok(ret)
    return int(s)


def queued_copy(clean: bool) -> tuple[int, int, int]:
    """(a, b, s): a copy from a to b queued on a new stream s, synchronized when clean."""
    a, b, s = filled(), alloc(), stream()
    ok(acl.rt.memcpy_async(b, N, a, N, D2D, s))
    if clean:
        ok(acl.rt.synchronize_stream(s))
    return a, b, s


def use_before_sync(clean: bool) -> None:
    a, b, s = queued_copy(clean)
    host = np.empty(N, np.uint8)
    ok(acl.rt.memcpy(host.ctypes.data, N, b, N, D2H))  # misuse
    ok(acl.rt.synchronize_stream(s))
    ok(acl.rt.destroy_stream(s))
    ok(acl.rt.free(a))
    ok(acl.rt.free(b))


def stream_race(clean: bool) -> None:
    a, b, s1, s2 = filled(), alloc(), stream(), stream()
    ok(acl.rt.memcpy_async(b, N, a, N, D2D, s1))
    if clean:
        ev, ret = acl.rt.create_event()
        ok(ret)
        ok(acl.rt.record_event(ev, s1))
        ok(acl.rt.stream_wait_event(s2, ev))
        ok(acl.rt.destroy_event(ev))
    ok(acl.rt.memcpy_async(b, N, a, N, D2D, s2))  # misuse
    for s in (s1, s2):
        ok(acl.rt.synchronize_stream(s))
        ok(acl.rt.destroy_stream(s))
    ok(acl.rt.free(a))
    ok(acl.rt.free(b))


def free_while_in_use(clean: bool) -> None:
    a, b, s = queued_copy(clean)
    ok(acl.rt.free(b))  # misuse
    ok(acl.rt.synchronize_stream(s))
    ok(acl.rt.destroy_stream(s))
    ok(acl.rt.free(a))


def use_after_free(clean: bool) -> None:
    a = filled()
    if clean:
        ok(acl.rt.memset(a, N, 0, N))
    ok(acl.rt.free(a))
    if not clean:
        acl.rt.memset(a, N, 0, N)  # misuse


def double_free(clean: bool) -> None:
    a = alloc()
    ok(acl.rt.free(a))
    if not clean:
        acl.rt.free(a)  # misuse


def invalid_free(clean: bool) -> None:
    a = alloc()
    if not clean:
        acl.rt.free(a + 16)  # misuse
    ok(acl.rt.free(a))


def out_of_bounds(clean: bool) -> None:
    a = alloc()
    size = N if clean else 2 * N
    acl.rt.memset(a, size, 0, size)  # misuse
    ok(acl.rt.free(a))


def wrong_device(clean: bool) -> None:
    a = filled()
    ok(acl.rt.set_device(1))
    b = alloc()
    if clean:
        ok(acl.rt.memset(b, N, 0, N))
    ok(acl.rt.set_device(0))
    if not clean:
        acl.rt.memcpy(b, N, a, N, D2D)  # misuse
    ok(acl.rt.set_device(1))
    ok(acl.rt.free(b))
    ok(acl.rt.reset_device(1))
    ok(acl.rt.set_device(0))
    ok(acl.rt.free(a))


def no_current_device(clean: bool) -> None:
    def worker() -> None:
        if clean:
            ok(acl.rt.set_device(0))
        ptr, ret = acl.rt.malloc(N, 0)  # misuse
        if ret == 0:
            ok(acl.rt.free(ptr))
        if clean:
            ok(acl.rt.reset_device(0))
    t = threading.Thread(target=worker)
    t.start()
    t.join()


def use_after_reset(clean: bool) -> None:
    a = alloc()
    if clean:
        ok(acl.rt.free(a))
    ok(acl.rt.reset_device(0))
    ok(acl.rt.set_device(0))
    if not clean:
        acl.rt.free(a)  # misuse


def leak(clean: bool) -> None:
    a, ret = acl.rt.malloc(N, 0)  # misuse
    ok(ret)
    if clean:
        ok(acl.rt.free(a))


def uninitialized_read(clean: bool) -> None:
    a = filled() if clean else alloc()
    host = np.empty(N, np.uint8)
    ok(acl.rt.memcpy(host.ctypes.data, N, a, N, D2H))  # misuse
    ok(acl.rt.free(a))


def destroy_pending(clean: bool) -> None:
    a, b, s = queued_copy(clean)
    ok(acl.rt.destroy_stream(s))  # misuse
    ok(acl.rt.synchronize_device())
    ok(acl.rt.free(a))
    ok(acl.rt.free(b))


CASES = {f.__name__: f for f in (use_before_sync, stream_race, free_while_in_use, use_after_free, double_free,
                                 invalid_free, out_of_bounds, wrong_device, no_current_device, use_after_reset,
                                 leak, uninitialized_read, destroy_pending)}


def main() -> None:
    name = sys.argv[1]
    clean = name.endswith("_clean")
    case = CASES[name.removesuffix("_clean")]
    ok(acl.init())
    ok(acl.rt.set_device(0))
    case(clean)
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())
    print("PASS", name)


if __name__ == "__main__":
    main()
