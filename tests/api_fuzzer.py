"""A seeded fuzzer over the public Python API, run the way a hostile user would use it.

Each case picks an action: create a resource with random (often bad) arguments, call a method
of a random live, closed or foreign object with random arguments, run a random discovered
operator on random tensors and compare with its plan (another path through the same operator),
or close an object — sometimes from a second thread while the main thread uses it.  A case passes
when it returns, or raises one of the package's errors, TypeError, ValueError or IndexError with a
message; anything else (OverflowError,
AttributeError, BufferError, KeyError, a wrong result, a crash, a hang) is a finding.  At the
end everything is closed and the embedded runtime must hold nothing.

    python tests/api_fuzzer.py --cases 10000 --seed 1      (from any directory but the checkout)
"""
from __future__ import annotations

import argparse
import random
import sys
import threading
import time

import numpy as np

import pyacl_hardgrad as hg

ALLOWED = (hg.PyaclError, TypeError, ValueError, IndexError)
DTYPES = ("float32", "float16", "bfloat16", "int32", "float64", "int8", "uint8")


class Finding(AssertionError):
    pass


def _offered_operators():
    """The discovered operators whose parameters are tensor inputs, scalars and one output."""
    out = []
    for spec in hg.ops.operators().values():
        kinds, roles = [p.kind for p in spec.params], [p.role for p in spec.params]
        if roles.count("out") == 1 and "inout" not in roles and set(kinds) <= {"tensor", "scalar", "out"} \
                and "tensor" in kinds:
            out.append(spec)
    return out


_OPERATORS = _offered_operators()


def _plan_result(spec, kwargs, arrays, dev):
    """The operator's result through its one-shot plan over fresh tensors (another path than
    the one-call function), or None when the plan refuses the arguments."""
    try:
        tensors = [hg.Tensor(a, dev) for a in arrays]
        try:
            with spec.plan(**kwargs(tensors)) as plan:
                out = plan.run(sync=True)
                res = out.numpy()
                out.close()
                return res
        finally:
            for t in tensors:
                t.close()
    except ALLOWED:
        return None


def _weird_ints(r: random.Random):
    return r.choice([0, 1, -1, 7, 2**31, 2**31 - 1, -2**31, 2**63, 2**64, 2**64 + 64, -2**63 - 1, 10**400 if r.random()
                     < 0.1 else 3, r.randrange(-100, 100), r.randrange(0, 1 << 20)])


def _weird_value(r: random.Random, pool):
    kinds = [lambda: _weird_ints(r), lambda: r.uniform(-5, 5), lambda: None, lambda: "0.5", lambda: b"1",
             lambda: [1, 2], lambda: float("nan"), lambda: float("inf"), lambda: np.float16(1.5),
             lambda: np.arange(3), lambda: object(), lambda: True]
    if pool:
        kinds.append(lambda: r.choice(pool))
    return r.choice(kinds)()


class Fuzzer:
    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.pool: list = []        # every object made, live or closed
        self.cases = 0
        self.outcomes = {"ok": 0, "error": 0}
        self.dev = hg.Device(0)
        self.pool.append(self.dev)
        # Tensors made with owner=None view this block: it outlives them all (the contract of
        # from_device_pointer without an owner), so the fuzzer never frees memory a tensor views.
        self.unowned = self.dev.allocate((4 << 20) + 128)

    # -- bookkeeping ----------------------------------------------------------------------------
    def _call(self, what: str, fn, *args, **kw):
        try:
            out = fn(*args, **kw)
        except ALLOWED as exc:
            if not str(exc):
                raise Finding(f"{what}: {type(exc).__name__} without a message") from exc
            self.outcomes["error"] += 1
            return None
        except Exception as exc:
            raise Finding(f"{what}: unclear {type(exc).__name__}: {exc}") from exc
        self.outcomes["ok"] += 1
        if isinstance(out, (hg.Tensor, hg.Stream, hg.Event, hg.DeviceMemory, hg.Scalar)):
            self.pool.append(out)
        return out

    def _live(self, cls):
        items = [o for o in self.pool if isinstance(o, cls) and not o.closed]
        return self.r.choice(items) if items else None

    def _any(self, cls):
        items = [o for o in self.pool if isinstance(o, cls)]
        return self.r.choice(items) if items else None

    def _arg(self, cls):
        """Mostly a live object of cls, sometimes a closed one or garbage."""
        p = self.r.random()
        if p < 0.75:
            obj = self._live(cls)
            if obj is not None:
                return obj
        if p < 0.9:
            obj = self._any(cls)
            if obj is not None:
                return obj
        return _weird_value(self.r, self.pool)

    # -- actions --------------------------------------------------------------------------------
    def make(self):
        r = self.r
        choice = r.randrange(7)
        if choice == 0:
            shape = tuple(r.randrange(0, 5) for _ in range(r.randrange(0, 4)))
            arr = (np.random.default_rng(r.randrange(1 << 30)).standard_normal(shape) * 4).astype(
                np.dtype(hg.dtypes.to_numpy_dtype(r.choice(DTYPES))))
            self._call("Tensor(array)", hg.Tensor, arr, self.dev)
        elif choice == 1:
            shape = r.choice([(3,), (2, 3), (0,), _weird_value(r, []), (2**62, 8), (-1,)])
            self._call("empty", hg.empty, shape, r.choice(DTYPES + ("nope",)), self.dev)
        elif choice == 2:
            self._call("allocate", self.dev.allocate, r.choice([0, 8, 64, 4096, _weird_ints(r)]))
        elif choice == 3:
            self._call("create_stream", self.dev.create_stream)
        elif choice == 4:
            self._call("create_event", self.dev.create_event)
        elif choice == 5:
            self._call("Scalar", hg.Scalar, _weird_value(r, []), r.choice(DTYPES))
        else:
            owned = r.random() < 0.8
            mem = self._arg(hg.DeviceMemory) if owned else self.unowned
            addr = int(mem) if isinstance(mem, hg.DeviceMemory) and not mem.closed else _weird_ints(r)
            addr += r.choice([0, 0, 1, 2, 4, -4]) + (0 if owned else 64)
            self._call("from_device_pointer", hg.Tensor.from_device_pointer, addr,
                       r.choice([(4,), (2, 2), (0,), (1 << 20,)]), r.choice(DTYPES),
                       owner=mem if owned else None, device=self.dev)

    def use_tensor(self):
        r = self.r
        t = self._arg(hg.Tensor)
        if not isinstance(t, hg.Tensor):
            return
        op = r.randrange(6)
        if op == 0:
            got = self._call("numpy", t.numpy)
            if got is not None:
                assert got.shape == t.shape
        elif op == 1:
            self._call("transpose", t.transpose, *[_weird_ints(r) % 5 - 2 for _ in range(r.randrange(0, 3))])
        elif op == 2:
            self._call("view", t.view, r.choice([(2,), (0,), (1, 1), (3,)]), r.choice([None, (1,), (-1,), (2**62,)]),
                       r.choice([None, 0, 1, -1, 2**63]))
        elif op == 3:
            self._call("getitem", t.__getitem__, r.choice([0, -1, slice(None, None, 2), (Ellipsis, 0), 99]))
        elif op == 4:
            if not t.closed and t.size and t.dtype.kind == "f":
                data = (np.random.default_rng(r.randrange(1 << 30)).standard_normal(t.shape) * 3).astype(t.dtype)
                if self._call("copy_from", t.copy_from, data) is not None:
                    back = self._call("numpy after copy_from", t.numpy)
                    if back is not None and not np.array_equal(back.reshape(-1).view(np.uint8),
                                                               data.reshape(-1).view(np.uint8)):
                        raise Finding(f"copy_from/numpy round trip differs for {t!r}")
            else:
                self._call("copy_from", t.copy_from, _weird_value(r, []))
        else:
            self._call("reshape", t.reshape, r.choice([-1, (2, -1), 4, (0,)]))

    def use_memory(self):
        r = self.r
        m = self._arg(hg.DeviceMemory)
        if not isinstance(m, hg.DeviceMemory):
            return
        op = r.randrange(5)
        stream = self._arg(hg.Stream) if r.random() < 0.2 else None
        if op == 0:
            self._call("memset", m.memset, r.choice([0, 1, 255, 256, -1, "a"]), r.choice([None, 0, 4, 2**64]),
                       r.choice([0, 1, -1]))
        elif op == 1:
            self._call("copy_to_host", m.copy_to_host, r.choice([None, bytearray(8), bytes(8), memoryview(bytearray(4)),
                                                                 np.zeros(3, np.float32), 5]), stream=stream)
        elif op == 2:
            payload = bytes(r.randrange(256) for _ in range(r.randrange(0, 16)))
            if self._call("copy_from_host", m.copy_from_host, payload) is None and not m.closed and \
                    len(payload) <= m.nbytes:
                back = self._call("copy_to_host", m.copy_to_host, None, len(payload))
                if back is not None and bytes(back) != payload:
                    raise Finding("copy_from_host/copy_to_host round trip differs")
        elif op == 3:
            self._call("copy_from_device", m.copy_from_device, self._arg(hg.DeviceMemory),
                       r.choice([None, 0, 4, 2**70]))
        else:
            self._call("int(memory)", int, m)

    def use_stream_event(self):
        r = self.r
        s, e = self._arg(hg.Stream), self._arg(hg.Event)
        op = r.randrange(6)
        if op == 0 and isinstance(s, hg.Stream):
            self._call("record", s.record, e if r.random() < 0.7 else None)
        elif op == 1 and isinstance(s, hg.Stream):
            self._call("wait", s.wait, e)
        elif op == 2 and isinstance(s, hg.Stream):
            self._call("synchronize", s.synchronize)
        elif op == 3 and isinstance(e, hg.Event):
            self._call("event.record", e.record, s)
        elif op == 4 and isinstance(e, hg.Event):
            self._call("elapsed_time", e.elapsed_time, self._arg(hg.Event))
        elif isinstance(e, hg.Event):
            self._call("query", e.query)

    def run_operator(self):
        """A random discovered operator (tensor inputs, scalars, one output) on random tensors and
        scalars, through the host-array call or the Tensor call; a result is compared bit for bit
        with the other path of the same operator (a plan over fresh tensors)."""
        r = self.r
        spec = r.choice(_OPERATORS)
        name = spec.function_name
        ins = [p for p in spec.params if p.kind == "tensor"]
        outp = next(p for p in spec.params if p.role == "out")
        dt = r.choice(["float32", "float16", "bfloat16", "float32", "int32"])
        shape = r.choice([(4,), (2, 3), (0,), (1, 1, 5)])
        rng = np.random.default_rng(r.randrange(1 << 30))
        npdt = hg.dtypes.to_numpy_dtype(dt)
        arrays = [(rng.standard_normal(shape) * 3).astype(npdt) for _ in ins]
        scalar_params = [p for p in spec.params if p.kind == "scalar"]
        scalars = sorted(r.uniform(-3, 3) for _ in scalar_params)      # ascending: bounds stay ordered
        if scalars and r.random() < 0.15:
            scalars[r.randrange(len(scalars))] = _weird_value(r, [])

        def kwargs(tensors):
            kw, ti, si = {}, iter(tensors), iter(scalars)
            for p in spec.params:
                if p.role != "out":
                    kw[p.name] = next(ti) if p.kind == "tensor" else next(si)
            return kw

        out_made = False
        numpy_path = r.random() < 0.5
        if numpy_path:
            kw = kwargs(arrays)          # (a parameter may be called self: no keywords through _call)
            got = self._call(f"{name}(numpy)", lambda: spec.function(**kw))
        else:
            tensors = [self._call("Tensor", hg.Tensor, a, self.dev) for a in arrays]
            if any(t is None for t in tensors):
                return
            if r.random() < 0.2:
                tensors[r.randrange(len(tensors))].close()
            alias = r.random() < 0.25 and not any(t.closed for t in tensors)
            kw = kwargs(tensors)
            if alias:                                               # in place over an input
                kw[outp.name] = tensors[r.randrange(len(tensors))]
            kw["stream"] = self._arg(hg.Stream) if r.random() < 0.3 else None
            out = self._call(f"{name}(Tensor)", lambda: spec.function(**kw))
            got = None
            out_made = isinstance(out, hg.Tensor)
            if isinstance(out, hg.Tensor):
                got = self._call("out.numpy", out.numpy)
                if not alias:
                    out.close()
            for t in tensors:
                t.close()
        bad = [s for s in scalars if not isinstance(s, (int, float, np.number))]
        if bad and (got is not None or out_made):
            raise Finding(f"{name} accepted the scalar {bad[0]!r}")
        if got is not None and all(isinstance(s, float) for s in scalars):
            want = _plan_result(spec, kwargs, arrays, self.dev)
            if want is None or np.asarray(got).dtype != want.dtype or \
                    not np.array_equal(np.asarray(got).reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8)):
                raise Finding(f"{name} {dt}{shape} scalars={scalars} ({'numpy' if numpy_path else 'Tensor'} call): "
                              f"got {got!r}, the plan gives {want!r}")

    def close_something(self, threaded: bool):
        victims = [o for o in self.pool if not o.closed and o is not self.dev]
        if not victims:
            return
        v = self.r.choice(victims)
        if not threaded:
            v.close()
            return
        # Close from another thread while this one keeps using the API.
        delay = self.r.random() * 1e-4
        th = threading.Thread(target=lambda: (time.sleep(delay), v.close()))
        th.start()
        for _ in range(3):
            self.step(allow_threads=False)
        th.join(timeout=60)
        if th.is_alive():
            raise Finding(f"close() of {v!r} hangs")

    def step(self, allow_threads: bool = True):
        self.cases += 1
        p = self.r.random()
        if p < 0.2:
            self.make()
        elif p < 0.4:
            self.use_tensor()
        elif p < 0.55:
            self.use_memory()
        elif p < 0.68:
            self.use_stream_event()
        elif p < 0.85:
            self.run_operator()
        else:
            self.close_something(threaded=allow_threads and self.r.random() < 0.5)
        if len(self.pool) > 200:          # forget closed objects so the pool stays small
            self.pool = [o for o in self.pool if not o.closed] + [o for o in self.pool if o.closed][-20:]

    def finish(self):
        for o in self.pool:
            if o is not self.dev:
                o.close()
        self.unowned.close()
        self.dev.close()
        self.pool.clear()
        hg.release_defaults()
        import gc
        gc.collect()
        if hg.BACKEND.is_embedded:
            alive = {k: v for k, v in hg.live_counts().items() if v}
            if alive:
                raise Finding(f"still alive after closing everything: {alive}")


def run(cases: int, seed: int) -> dict:
    f = Fuzzer(seed)
    try:
        while f.cases < cases:
            f.step()
    finally:
        f.finish()
    return {"cases": f.cases, **f.outcomes}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="seeded fuzzer over pyacl_hardgrad's public API")
    ap.add_argument("--cases", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    out = run(args.cases, args.seed)
    print(f"{out['cases']} cases, {out['ok']} calls returned, {out['error']} raised a clear error, "
          f"0 findings, {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
