"""What a type checker infers for user code, line by line (never run: tests/test_typing.py runs
``mypy --strict`` on it).

``# R: <type>`` after a ``reveal_type`` states the type mypy must reveal there; ``# E: <code>``
states that mypy must report an error with that code on the line (misuse it has to catch).
Every other line must pass.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from typing_extensions import reveal_type

import pyacl_hardgrad as hg
from pyacl_hardgrad import ops


def one_calls(t: hg.Tensor, a: npt.NDArray[np.float32], s: hg.Stream) -> None:
    reveal_type(hg.hardtanh_backward(t, t))  # R: pyacl_hardgrad.tensor.Tensor
    reveal_type(hg.hardtanh_backward(t, t, -0.5, 0.5, stream=s, sync=True))  # R: pyacl_hardgrad.tensor.Tensor
    reveal_type(hg.hardtanh_backward(a, t))  # R: pyacl_hardgrad.tensor.Tensor
    reveal_type(hg.hardtanh_backward(t, [1.0, 2.0]))  # R: pyacl_hardgrad.tensor.Tensor
    reveal_type(hg.hardtanh_backward(a, a, out=t))  # R: pyacl_hardgrad.tensor.Tensor
    reveal_type(hg.hardtanh_backward(a, a))  # R: numpy.ndarray[tuple[Any, ...], numpy.dtype[Any]]
    reveal_type(hg.hardtanh_backward(t, t, hg.Scalar(0.5), np.float32(1.0)))  # R: pyacl_hardgrad.tensor.Tensor
    reveal_type(ops.hardsigmoid_backward(t, t))  # R: pyacl_hardgrad.tensor.Tensor
    reveal_type(hg.inplace_hardtanh(t))  # R: pyacl_hardgrad.tensor.Tensor
    reveal_type(hg.inplace_hardtanh(a))  # R: numpy.ndarray[tuple[Any, ...], numpy.dtype[Any]]
    reveal_type(hg.hardsigmoid_result_dtype(np.float16, "float32"))  # R: numpy.dtype[Any]
    hg.hardtanh_backward(t, t, stream=0)  # E: call-overload
    hg.hardtanh_backward(t, t, "0.5")  # E: call-overload
    hg.hardtanh_backward(t)  # E: call-overload
    hg.hardtanh_backward(t, t, outt=t)  # E: call-overload
    hg.no_such_operator(t)  # E: attr-defined


def plans(t: hg.Tensor, w: hg.DeviceMemory, s: hg.Stream) -> None:
    with hg.HardtanhBackwardPlan(t, t, -1.0, 1.0) as plan:
        reveal_type(plan)  # R: pyacl_hardgrad._ops_typing.HardtanhBackwardPlan
        reveal_type(plan.run(w, s))  # R: pyacl_hardgrad.tensor.Tensor
        reveal_type(plan.out)  # R: pyacl_hardgrad.tensor.Tensor
        reveal_type(plan.workspace_size)  # R: int
        reveal_type(plan.consumed)  # R: bool
        plan.run(stream=s, sync=True)
        plan.close()
    hg.HardtanhBackwardPlan(t, np.zeros(3))  # E: arg-type
    reveal_type(ops.HardtanhPlan(t, repeatable=True).run())  # R: pyacl_hardgrad.tensor.Tensor


def runtime_objects(d: hg.Device, t: hg.Tensor) -> None:
    reveal_type(hg.Device(0))  # R: pyacl_hardgrad.device.Device
    reveal_type(d.default_stream)  # R: pyacl_hardgrad.stream.Stream
    reveal_type(d.create_event())  # R: pyacl_hardgrad.stream.Event
    reveal_type(d.allocate(64))  # R: pyacl_hardgrad.memory.DeviceMemory
    reveal_type(hg.from_numpy(np.ones(3), d))  # R: pyacl_hardgrad.tensor.Tensor
    reveal_type(t.numpy())  # R: numpy.ndarray[Any, Any]
    reveal_type(t[0, 1:])  # R: pyacl_hardgrad.tensor.Tensor
    reveal_type(t.reshape(2, -1))  # R: pyacl_hardgrad.tensor.Tensor
    reveal_type(t.dtype)  # R: numpy.dtype[Any]
    reveal_type(t.shape)  # R: tuple[int, ...]
    reveal_type(hg.Scalar(2, "int32").value)  # R: numpy.generic[Any]
    reveal_type(hg.live_counts())  # R: dict[str, int]
    reveal_type(hg.memory_stats()["cached_bytes"])  # R: int
    reveal_type(hg.errors.code_name(107000))  # R: str
    reveal_type(hg.bfloat16)  # R: numpy.dtype[Any]
    reveal_type(hg.lib)  # R: Any
    reveal_type(hg.acl.rt.malloc)  # R: def (*Any, **Any) -> tuple[Any, ...]
    hg.Tensor.empty((2, 2), device=0)  # E: arg-type
    hg.Device("0")  # E: arg-type


_unused: Any = None
