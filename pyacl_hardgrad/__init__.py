"""pyacl_hardgrad: CANN's C API and its aclnn operators from Python.

Two levels, one binding:
  * ``from pyacl_hardgrad import ffi, lib`` (or ``pyacl_hardgrad.raw``): every C function
    of include/ one line away, for line-by-line ports of C++ code;
  * handles with ``close()`` / ``with``: Runtime, Device, Stream, Event, DeviceMemory,
    Tensor, Scalar, every aclnn operator's one-call function and two-phase plan (``hg.ops``).

Only ``get_include``, ``get_library_dir``, ``get_cann_path`` and ``__version__`` are available without loading
the C libraries; any other attribute loads them on first use (so ``python -m
pyacl_hardgrad --includes`` works even where no backend can be loaded).

PYTEST_DONT_REWRITE: library code, not tests (the package's pytest plugin says why).
"""
import logging
from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._paths import get_cann_path, get_include, get_library_dir

# The package logs through ``logging.getLogger("pyacl_hardgrad")`` (the call trace through its
# child "pyacl_hardgrad.calls"); as a library it only adds a NullHandler.
logging.getLogger(__name__).addHandler(logging.NullHandler())

__version__ = "0.1.0"

# attribute -> submodule that defines it
_LAZY = {
    "ffi": "_binding", "lib": "_binding", "BACKEND": "_binding", "bound_files": "_binding",
    "raw": None, "errors": None, "dtypes": None, "ops": None, "acl": None, "hccl": None,
    "BackendError": "_backend",
    "PyaclError": "errors", "AclError": "errors", "RuntimeApiError": "errors", "AclnnError": "errors",
    "AclnnParamError": "errors", "ApiNotSupportedError": "errors", "ClosedError": "errors",
    "PlanConsumedError": "errors", "CleanupWarning": "errors", "check": "errors", "code_name": "errors",
    "Runtime": "runtime", "runtime_reference_count": "runtime",
    "Device": "device", "device_count": "device", "default_device": "device", "release_defaults": "device",
    "Stream": "stream", "Event": "stream",
    "DeviceMemory": "memory", "Workspace": "memory", "HostMemory": "memory", "Context": "context",
    "Tensor": "tensor", "empty": "tensor", "zeros": "tensor", "from_numpy": "tensor",
    "from_dlpack": "_dlpack", "DLDeviceType": "_dlpack",
    "Scalar": "scalar",
    "float32": "dtypes", "float16": "dtypes", "bfloat16": "dtypes",
    "result_dtype": "ops", "operators": "ops",
    "live_counts": "_diagnostics",
    "track_objects": "_tracking", "live_objects": "_tracking", "ObjectTracker": "_tracking",
    "ObjectRecord": "_tracking",
    "memory_stats": "_allocator", "empty_cache": "_allocator", "reset_peak_memory_stats": "_allocator",
    "allocator_settings": "_allocator",
    "smi": "_cli_smi", "format_smi": "_cli_smi",
    "trace_calls": "_trace", "calls_traced": "_trace",
    "profile": "_profile", "Profile": "_profile",
}

__all__ = ["get_include", "get_library_dir", "get_cann_path", "__version__", *_LAZY]


if TYPE_CHECKING:
    # What __getattr__ below loads on first use, as type checkers see it (they do not run it).
    from . import acl as acl, dtypes as dtypes, errors as errors, ops as ops, raw as raw
    from . import hccl as hccl
    from ._allocator import (allocator_settings as allocator_settings, empty_cache as empty_cache,
                             memory_stats as memory_stats, reset_peak_memory_stats as reset_peak_memory_stats)
    from ._backend import BackendError as BackendError
    from ._binding import BACKEND as BACKEND, bound_files as bound_files, ffi as ffi, lib as lib
    from ._cli_smi import format_smi as format_smi, smi as smi
    from ._diagnostics import live_counts as live_counts
    from ._dlpack import DLDeviceType as DLDeviceType, from_dlpack as from_dlpack
    from ._ops_typing import *  # noqa: F403  (every operator's function and plan: the generated stub)
    from ._tracking import (ObjectRecord as ObjectRecord, ObjectTracker as ObjectTracker,
                            live_objects as live_objects, track_objects as track_objects)
    from .context import Context as Context
    from .device import (Device as Device, default_device as default_device, device_count as device_count,
                         release_defaults as release_defaults)
    from .dtypes import bfloat16 as bfloat16, float16 as float16, float32 as float32
    from .errors import (AclError as AclError, AclnnError as AclnnError, AclnnParamError as AclnnParamError,
                         ApiNotSupportedError as ApiNotSupportedError, CleanupWarning as CleanupWarning,
                         ClosedError as ClosedError, PlanConsumedError as PlanConsumedError,
                         PyaclError as PyaclError, RuntimeApiError as RuntimeApiError, check as check,
                         code_name as code_name)
    from .memory import DeviceMemory as DeviceMemory, HostMemory as HostMemory, Workspace as Workspace
    from .ops import operators as operators, result_dtype as result_dtype
    from .runtime import Runtime as Runtime, runtime_reference_count as runtime_reference_count
    from .scalar import Scalar as Scalar
    from .stream import Event as Event, Stream as Stream
    from .tensor import Tensor as Tensor, empty as empty, from_numpy as from_numpy, zeros as zeros
    from ._trace import calls_traced as calls_traced, trace_calls as trace_calls
    from ._profile import Profile as Profile, profile as profile
else:
    def __getattr__(name: str) -> Any:
        try:
            mod = _LAZY[name]
        except KeyError:
            if name.startswith("_"):
                raise AttributeError(f"module 'pyacl_hardgrad' has no attribute {name!r}") from None
            ops = import_module(".ops", __name__)        # every aclnn operator's function and plan
            if name not in ops.__all__:
                raise AttributeError(f"module 'pyacl_hardgrad' has no attribute {name!r}") from None
            value = getattr(ops, name)
            globals()[name] = value
            return value
        if mod is None:
            value = import_module(f".{name}", __name__)
        else:
            value = getattr(import_module(f".{mod}", __name__), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    names = set(globals()) | set(__all__)
    if "ops" in globals() or "pyacl_hardgrad.ops" in __import__("sys").modules:
        names |= set(import_module(".ops", __name__).__all__)
    return sorted(names)
