"""The embedded operator library's kernel choices (``hgGetKernelChoices``, ``hgGetKernelSettings``
in include/pyacl_hardgrad/embedded.h) as Python data and as the lines ``python -m pyacl_hardgrad
info`` prints.  A kernel row (operator, dtypes) is chosen at its first use in the process, so
``exercise()`` first runs every registered operator once per float dtype on a small tensor."""
from __future__ import annotations

from typing import Any, Optional, TypedDict

PATHS = ("scalar", "avx2", "avx512", "neon")          # hgKernelPath order
REASONS = ("measured", "forced by PYACL_HARDGRAD_KERNEL_ISA", "only candidate",
           "faked by PYACL_HARDGRAD_KERNEL_FAKE_NS", "not measured")
DTYPES = ("float32", "float16", "bfloat16")
_INT64_MAX = (1 << 63) - 1


class KernelSettings(TypedDict):
    forced: Optional[str]
    available: list[str]
    threads: int
    margin_percent: int
    split_min_ns: int
    handoff_ns: int
    stream_min_bytes: int
    streamed_calls: int
    l1_cache_bytes: int
    memory_ns_per_byte: list[float]


class KernelChoice(TypedDict):
    op: str
    inputs: list[str]
    out: str
    path: str
    reason: str
    ns_per_element: dict[str, float]
    parallel_min_elements: Optional[int]


def settings() -> KernelSettings:
    """hgGetKernelSettings as a dict."""
    from ._binding import ffi, lib
    s: Any = ffi.new("hgKernelSettings *")     # (a struct: its fields are the C ones)
    rc = lib.hgGetKernelSettings(s)
    if rc != 0:
        raise RuntimeError(f"hgGetKernelSettings returned {rc}")
    return {"forced": PATHS[s.forcedPath] if s.forcedPath >= 0 else None,
            "available": [p for i, p in enumerate(PATHS) if s.availablePaths >> i & 1],
            "threads": s.threads, "margin_percent": s.marginPercent,
            "split_min_ns": s.splitMinNs, "handoff_ns": s.handoffNs,
            "stream_min_bytes": int(s.streamMinBytes), "streamed_calls": int(s.streamedCalls),
            "l1_cache_bytes": int(s.l1CacheBytes),
            "memory_ns_per_byte": [float(v) for v in s.memoryNsPerByte]}


def choices() -> list[KernelChoice]:
    """Every kernel row chosen so far in this process (hgGetKernelChoices), in order of first use."""
    from ._binding import ffi, lib
    from .dtypes import acl_name
    count = ffi.new("int32_t *")
    rc = lib.hgGetKernelChoices(ffi.NULL, 0, count)
    if rc != 0:
        raise RuntimeError(f"hgGetKernelChoices returned {rc}")
    buf: Any = ffi.new("hgKernelChoice[]", max(count[0], 1))
    rc = lib.hgGetKernelChoices(buf, count[0], count)
    if rc != 0:
        raise RuntimeError(f"hgGetKernelChoices returned {rc}")
    out: list[KernelChoice] = []
    for c in buf[0:min(count[0], len(buf))]:
        out.append({"op": ffi.string(c.op).decode(),
                    "inputs": [acl_name(c.inDtypes[k]) for k in range(c.inCount)],
                    "out": acl_name(c.outDtype), "path": PATHS[c.path], "reason": REASONS[c.reason],
                    "ns_per_element": {p: c.nsPerElement[i] for i, p in enumerate(PATHS) if c.nsPerElement[i] >= 0},
                    "parallel_min_elements": None if c.parallelMinElements == _INT64_MAX else c.parallelMinElements})
    return out


def exercise(n: int = 1024) -> None:
    """One call of every registered operator (not the in-place forms) per float dtype, on
    tensors of n elements, so that each such kernel row gets chosen."""
    import numpy as np

    from . import ops
    from .dtypes import to_numpy_dtype
    for spec in ops.operators().values():
        if any(p.role == "inout" for p in spec.params):
            continue
        for name in DTYPES:
            data = np.linspace(-4.0, 4.0, n, dtype=np.float32).astype(to_numpy_dtype(name))
            args = [data if p.kind in ("tensor", "out") else (p.default if p.has_default else 0.5)
                    for p in spec.inputs]
            spec.function(*args)


def _size_text(n: int) -> str:
    return f"{n / 2**20:g} MiB" if n >= 2**20 else f"{n / 2**10:g} KiB"


def info_lines() -> list[str]:
    s = settings()
    lines = [f"kernels:      paths {', '.join(s['available'])}; "
             + (f"forced {s['forced']} (PYACL_HARDGRAD_KERNEL_ISA)" if s["forced"] else
                f"chosen per operator and dtype by timing (a later candidate must be {s['margin_percent']}% faster)"),
             f"kernel split: {s['threads']} threads; a call is split from an estimated "
             f"{s['split_min_ns'] / 1000:.1f} us "
             f"on one thread (measured hand-off {s['handoff_ns'] / 1000:.1f} us); a call moving more than "
             f"{s['l1_cache_bytes'] / 2**10:.0f} KiB (the level-1 data cache, where the costs are measured) adds "
             "the memory cost learnt "
             "from such calls on one thread: " + (", ".join(
                 f"{_size_text(s['l1_cache_bytes'] << c)}+ {v * 1000:.1f} ns/KB"
                 for c, v in enumerate(s["memory_ns_per_byte"]) if v > 0) or "none yet"),
             (f"kernel stores: streaming (cache-bypassing, avx2/avx512 paths) when a call's tensors together exceed "
              f"{s['stream_min_bytes'] / 2**20:.1f} MiB (half the last-level cache, or PYACL_HARDGRAD_STREAM_MIN_BYTES)"
              if {"avx2", "avx512"} & set(s["available"]) else
              "kernel stores: ordinary (no kernel path of this CPU has streaming-store twins)")]
    for c in choices():
        times = ", ".join(f"{p} {v:.3f}" for p, v in c["ns_per_element"].items() if v > 0)
        split = "never" if c["parallel_min_elements"] is None else f">= {c['parallel_min_elements']}"
        lines.append(f"  {c['op']} {','.join(c['inputs'])}->{c['out']}: {c['path']} ({c['reason']}"
                     f"{'; ns/element ' + times if times else ''}; split {split})")
    return lines
