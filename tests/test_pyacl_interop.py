"""Handles between pyACL code and the Pythonic layer, both ways, with explicit ownership;
and, on a fake CANN toolkit, pyACL ints shared with another loader of the same libascendcl."""
import json
import os
import platform
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest


@pytest.fixture()
def env(hg):
    """pyACL's runtime ready (through the Pythonic layer's reference counts) and a device."""
    with hg.Runtime(), hg.Device(0) as dev:
        yield hg, hg.acl, dev


def _two_input_case():
    """The first discovered operator taking two input tensors and one output (any scalars at
    their defaults or py_op_cases' values); its expected result is its own host-array call."""
    from py_op_cases import cases
    for case in cases():
        if len(case.tensor_params) == 2:
            return case
    pytest.skip("no operator takes two input tensors")


def test_plan_runs_on_a_pyacl_stream_with_a_pyacl_workspace(env):
    """A transposed input makes the plan need a workspace: acl.rt.malloc gives it, pyACL's
    stream runs it, pyACL waits for it."""
    hg, acl, dev = env
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    g = np.linspace(-3, 3, 64, dtype=np.float32).reshape(8, 8)
    x = np.linspace(-2, 2, 64, dtype=np.float32)[::-1].reshape(8, 8).copy()
    case = _two_input_case()
    want = case.expected(host=[g, x])
    with hg.Tensor(g, dev) as tg, hg.Tensor(x.T.copy(), dev) as txt, \
            case.plan([tg, txt.T], repeatable=True) as plan:
        size = plan.workspace_size
        assert size > 0
        ws, ret = acl.rt.malloc(size, 0)
        assert ret == 0
        with hg.Stream.from_handle(stream) as s, hg.Workspace.from_handle(ws, size) as w:
            assert int(s) == stream and int(w) == ws and not s.owns_handle and not w.owns_handle
            for _ in range(2):
                plan.run(w, s)
                assert acl.rt.synchronize_stream(stream) == 0        # pyACL waits on its own stream
                np.testing.assert_array_equal(plan.out.numpy(), want)
            with pytest.raises(ValueError, match="workspace of 1 bytes"):
                plan.run(hg.Workspace.from_handle(ws, 1), s)
        plan.out.close()
    # borrowed: both still belong to pyACL
    assert acl.rt.free(ws) == 0
    assert acl.rt.destroy_stream(stream) == 0


def test_operator_on_pyacl_memory_and_stream(env):
    """One-call operator over tensors wrapping acl.rt.malloc pointers, on a pyACL stream."""
    hg, acl, dev = env
    g = np.arange(6, dtype=np.float32)
    x = np.array([-4, -1, 0, 1, 2, 5], np.float32)
    ptrs = []
    for host in (g, x, np.zeros(6, np.float32)):
        p, ret = acl.rt.malloc(host.nbytes, 0)
        data = host.tobytes()
        assert ret == 0 and acl.rt.memcpy(p, host.nbytes, acl.util.bytes_to_ptr(data), host.nbytes, 1) == 0
        ptrs.append(p)
    stream, _ = acl.rt.create_stream()
    with hg.Stream.from_handle(stream) as s:
        tg, tx, to = (hg.Tensor.from_device_pointer(p, (6,), "float32", owner=hg.DeviceMemory.from_handle(p, 24))
                      for p in ptrs)
        case = _two_input_case()
        case.call([tg, tx], out=to, stream=s)
        assert acl.rt.synchronize_stream(stream) == 0
        out, _ = acl.rt.malloc_host(24)
        assert acl.rt.memcpy(out, 24, ptrs[2], 24, 2) == 0
        got = np.frombuffer(acl.util.ptr_to_bytes(out, 24), np.float32)
        np.testing.assert_array_equal(got, case.expected(host=[g, x]))
        assert acl.rt.free_host(out) == 0
        for t in (tg, tx, to):
            t.close()
    for p in ptrs:
        assert acl.rt.free(p) == 0
    assert acl.rt.destroy_stream(stream) == 0


def test_pythonic_handles_as_pyacl_ints(env):
    hg, acl, dev = env
    with dev.create_stream() as s, dev.create_event() as e, dev.allocate(32) as mem:
        assert acl.rt.record_event(int(e), int(s)) == 0
        assert acl.rt.synchronize_stream(int(s)) == 0
        assert acl.rt.query_event_status(int(e)) == (1, 0)
        data = bytes(range(32))
        assert acl.rt.memcpy(int(mem), 32, acl.util.bytes_to_ptr(data), 32, 1) == 0
        assert mem.copy_to_host() == bytearray(data)
    with hg.HostMemory(16) as h:
        assert acl.rt.memcpy(int(h), 16, acl.util.bytes_to_ptr(b"q" * 16), 16, 0) == 0
        assert bytes(h.buffer) == b"q" * 16 and h.numpy("uint8").sum() == ord("q") * 16


def _pyacl_handles(acl):
    """One of each handle kind, made by pyACL calls; the current context stays as it was."""
    before, _ = acl.rt.get_context()
    handles = {"stream": acl.rt.create_stream()[0], "event": acl.rt.create_event()[0],
               "ptr": acl.rt.malloc(64, 0)[0], "host": acl.rt.malloc_host(64)[0], "ctx": acl.rt.create_context(0)[0]}
    assert all(handles.values()) and acl.rt.set_context(before) == 0
    return handles


@pytest.mark.parametrize("own", [False, pytest.param(True, marks=pytest.mark.check_findings("double-free"))])
def test_from_handle_borrows_or_owns(env, own):
    """Borrowed handles stay with their creator (pyACL destroys them afterwards); owned ones
    are destroyed by close() (pyACL's destroy then fails)."""
    hg, acl, dev = env
    h = _pyacl_handles(acl)
    objs = [hg.Stream.from_handle(h["stream"], own=own), hg.Event.from_handle(h["event"], own=own),
            hg.Workspace.from_handle(h["ptr"], 64, own=own), hg.HostMemory.from_handle(h["host"], 64, own=own),
            hg.Context.from_handle(h["ctx"], own=own)]
    assert [int(o) for o in objs] == [h[k] for k in ("stream", "event", "ptr", "host", "ctx")]
    for o in objs:
        assert o.owns_handle is own
        o.close()
        assert o.closed
    results = [acl.rt.destroy_stream(h["stream"]), acl.rt.destroy_event(h["event"]), acl.rt.free(h["ptr"]),
               acl.rt.free_host(h["host"]), acl.rt.destroy_context(h["ctx"])]
    if own:
        assert all(r != 0 for r in results), results
    else:
        assert results == [0] * 5


def test_a_borrowed_stream_keeps_launched_work_alive(env):
    """Closing a borrowed stream right after a launch waits for the work (its tensors are
    held until then) and leaves the stream usable by its owner."""
    hg, acl, dev = env
    stream, _ = acl.rt.create_stream()
    g = np.ones(1 << 16, np.float32)
    s = hg.Stream.from_handle(stream)
    case = _two_input_case()
    with hg.Tensor(g, dev) as tg, hg.Tensor(g * 0.5, dev) as tx:
        out = case.call([tg, tx], stream=s)
    s.close()
    np.testing.assert_array_equal(out.numpy(), case.expected(host=[g, g * 0.5]))
    out.close()
    assert acl.rt.synchronize_stream(stream) == 0 and acl.rt.destroy_stream(stream) == 0


def test_context_objects(env):
    hg, acl, dev = env
    before = hg.Context.current()
    assert before is not None and not before.owns_handle and int(before) == acl.rt.get_context()[0]
    with hg.Context(dev) as ctx:
        assert ctx.owns_handle and acl.rt.get_context() == (int(ctx), 0) and ctx.device_id == 0
        before.make_current()
        assert acl.rt.get_context() == (int(before), 0)
        ctx.make_current()
        assert acl.rt.get_context()[0] == int(ctx)
        before.make_current()
    before.close()


@pytest.mark.parametrize("cls", ["Stream", "Event", "Context"])
def test_from_handle_bad_input(env, cls):
    hg, acl, dev = env
    klass = getattr(hg, cls)
    with pytest.raises(TypeError, match="handle must be an int"):
        klass.from_handle("0x1234")
    with pytest.raises(TypeError, match="handle must be an int"):
        klass.from_handle(None)
    with pytest.raises(ValueError, match="is not an address"):
        klass.from_handle(-1)
    with pytest.raises(ValueError, match="NULL"):
        klass.from_handle(0, own=True)
    if cls != "Stream":
        with pytest.raises(ValueError, match="NULL"):
            klass.from_handle(0)


def test_memory_from_handle_bad_input(env):
    hg, acl, dev = env
    for klass in (hg.DeviceMemory, hg.Workspace, hg.HostMemory):
        with pytest.raises(ValueError, match="NULL"):
            klass.from_handle(0, 16)
        with pytest.raises(ValueError, match="nbytes must be (>= 0|in \\[0, )"):
            klass.from_handle(0x1000, -1)
        with pytest.raises(TypeError):
            klass.from_handle(1.5, 16)


def test_default_stream_borrowed_as_null(env):
    hg, acl, dev = env
    with hg.Stream.from_handle(0) as s, dev.allocate(16) as mem:
        assert int(s) == 0
        mem.copy_from_host(b"x" * 16, stream=s)
        s.synchronize()
        assert mem.copy_to_host() == bytearray(b"x" * 16)


# -- the fake toolkit: our libraries under CANN's names ----------------------------------------------
def _arch():
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m)


@pytest.fixture()
def fake_cann(hg, tmp_path):
    """A CANN-shaped root: lib64/ with our three libraries, and python/site-packages/acl.py, a
    stand-in for CANN's pyACL: pyacl_hardgrad.acl bound to those libraries, marked."""
    root = tmp_path / "cann"
    libdir = root / "lib64"
    libdir.mkdir(parents=True)
    for name in ("libascendcl.so", "libnnopbase.so", "libopapi.so"):
        shutil.copy2(Path(hg.get_library_dir()) / name, libdir / name)
    site = root / "python" / "site-packages"
    site.mkdir(parents=True)
    (site / "acl.py").write_text(textwrap.dedent("""\
        import sys
        from pyacl_hardgrad import acl as _impl
        STAND_IN_FOR_CANN_PYACL = True
        rt, util, mdl, media = _impl.rt, _impl.util, _impl.mdl, _impl.media
        init, finalize, get_soc_name, get_version = _impl.init, _impl.finalize, _impl.get_soc_name, _impl.get_version
        get_recent_err_msg = _impl.get_recent_err_msg
    """))
    env = dict(os.environ, ASCEND_HOME_PATH=str(root), PYACL_HARDGRAD_BACKEND="cann", LD_LIBRARY_PATH=str(libdir))
    env.pop("ASCEND_TOOLKIT_HOME", None)
    env.pop("PYACL_HARDGRAD_PYACL", None)
    return root, libdir, site, env


PROBE = r"""
import ctypes, json, os, sys
import acl
import pyacl_hardgrad as hg
from pyacl_hardgrad._binding import bound_files
libdir = sys.argv[1]
foreign = ctypes.CDLL(os.path.join(libdir, "libascendcl.so"))   # another loader of the same library
foreign.aclrtMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_int]
foreign.aclrtFree.argtypes = [ctypes.c_void_p]
foreign.aclrtMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
out = {"stand_in": getattr(acl, "STAND_IN_FOR_CANN_PYACL", False), "backend": hg.BACKEND.name,
       "malloc_file": bound_files()["aclrtMalloc"]}
assert acl.init() == 0 and acl.rt.set_device(0) == 0
# pyACL's int -> the foreign loader
p, ret = acl.rt.malloc(64, 0)
data = bytes(range(64))
acl.rt.memcpy(p, 64, acl.util.bytes_to_ptr(data), 64, 1)
back = ctypes.create_string_buffer(64)
out["foreign_reads_pyacl_memory"] = foreign.aclrtMemcpy(back, 64, p, 64, 2) == 0 and back.raw == data
out["foreign_frees_pyacl_memory"] = foreign.aclrtFree(p) == 0
# the foreign loader's pointer -> pyACL and the Pythonic layer
q = ctypes.c_void_p()
assert foreign.aclrtMalloc(ctypes.byref(q), 64, 0) == 0
out["pyacl_writes_foreign_memory"] = acl.rt.memcpy(q.value, 64, acl.util.bytes_to_ptr(data), 64, 1) == 0
with hg.Workspace.from_handle(q.value, 64) as w:
    out["pythonic_reads_foreign_memory"] = bytes(w.copy_to_host()) == data
out["pyacl_frees_foreign_memory"] = acl.rt.free(q.value) == 0
out["double_free_seen"] = foreign.aclrtFree(ctypes.c_void_p(q.value)) != 0
acl.rt.reset_device(0)
acl.finalize()
print(json.dumps(out))
"""


def _probe(env, libdir, tmp_path, extra_path=()):
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    cmd = [sys.executable, "-m", "pyacl_hardgrad", "run", str(script), str(libdir)]
    env = dict(env, PYTHONPATH=os.pathsep.join([*extra_path, env.get("PYTHONPATH", "")]).strip(os.pathsep))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_fake_toolkit_handles_are_interchangeable(fake_cann, tmp_path):
    root, libdir, site, env = fake_cann
    info = _probe(dict(env, PYACL_HARDGRAD_PYACL="ours"), libdir, tmp_path)
    assert info["backend"] == "cann" and Path(info["malloc_file"]).resolve() == (libdir / "libascendcl.so").resolve()
    assert info["stand_in"] is False
    for key in ("foreign_reads_pyacl_memory", "foreign_frees_pyacl_memory", "pyacl_writes_foreign_memory",
                "pythonic_reads_foreign_memory", "pyacl_frees_foreign_memory", "double_free_seen"):
        assert info[key] is True, key


def test_cann_pyacl_wins_on_a_cann_backend(fake_cann, tmp_path):
    root, libdir, site, env = fake_cann
    info = _probe(env, libdir, tmp_path, extra_path=(str(site),))
    assert info["stand_in"] is True and info["backend"] == "cann"
    assert info["foreign_reads_pyacl_memory"] and info["pyacl_frees_foreign_memory"]
    # told otherwise: ours, although CANN's is importable
    info = _probe(dict(env, PYACL_HARDGRAD_PYACL="ours"), libdir, tmp_path, extra_path=(str(site),))
    assert info["stand_in"] is False


def test_embedded_backend_uses_ours_even_with_cann_pyacl_importable(fake_cann, tmp_path):
    root, libdir, site, env = fake_cann
    script = tmp_path / "which.py"
    script.write_text("import acl, pyacl_hardgrad as hg; print(getattr(acl, 'STAND_IN_FOR_CANN_PYACL', False), "
                      "hg.BACKEND.name)\n")
    env = dict(env, PYACL_HARDGRAD_BACKEND="sim", PYTHONPATH=str(site))
    proc = subprocess.run([sys.executable, "-m", "pyacl_hardgrad", "run", str(script)], capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "sim"]
    proc = subprocess.run([sys.executable, "-m", "pyacl_hardgrad", "run", "--pyacl", "cann", str(script)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0 and proc.stdout.split() == ["True", "sim"]      # asked for it explicitly


def test_closing_the_current_context_returns_to_the_devices_default(env):
    hg, acl, dev = env
    default, _ = acl.rt.get_context()
    ctx = hg.Context(dev)
    assert acl.rt.get_context() == (int(ctx), 0)
    ctx.close()
    assert acl.rt.get_context() == (default, 0)
    with dev.create_stream() as s:              # the package keeps working on this thread
        s.synchronize()
    other = hg.Context(dev)
    before = hg.Context.from_handle(default)    # borrowed: closing it leaves the current context alone
    before.make_current()
    other.close()                               # not current: nothing to switch
    assert acl.rt.get_context() == (default, 0)
    before.close()
    assert acl.rt.get_context() == (default, 0)
