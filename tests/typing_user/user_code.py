"""A user's script, as type checkers must accept it: ``mypy --strict`` reports nothing here.

It uses the package the way its documentation does (a device and a stream, tensors from numpy,
one-call operators on Tensors and on numpy arrays, a two-phase plan with a workspace, Scalars,
the allocator's statistics, errors) and states the types it relies on with ``assert_type``, so a
one-call typed ``Any`` (or wrongly) fails the check.  tests/test_typing.py runs mypy on it, and
runs it (with the embedded runtime) to show it is a real script.
"""
from __future__ import annotations

import sys
from typing import Any

import numpy as np
import numpy.typing as npt
from typing_extensions import assert_type

import pyacl_hardgrad as hg
from pyacl_hardgrad import ops


def gradient_on_device(device: hg.Device, grad: npt.NDArray[np.float32],
                       x: npt.NDArray[np.float32]) -> npt.NDArray[Any]:
    """hardtanh's gradient on the device: Tensors in, a Tensor out, enqueued on a stream."""
    with device.create_stream() as stream:
        assert_type(stream, hg.Stream)
        g = hg.from_numpy(grad, device)
        t = hg.Tensor(x, device)
        out = hg.hardtanh_backward(g, t, -0.5, 0.5, stream=stream)
        assert_type(out, hg.Tensor)
        # an output given, host data for the other input, a Scalar bound
        hg.hardtanh_backward(g, x, hg.Scalar(-0.5), 0.5, out=out, stream=stream, sync=True)
        stream.synchronize()
        result = out.numpy()
        assert_type(result, np.ndarray[Any, Any])
        for handle in (g, t, out):
            handle.close()
    return result


def gradient_on_host(grad: npt.NDArray[np.float32], x: npt.NDArray[np.float32]) -> npt.NDArray[Any]:
    """The same operator given numpy arrays only: it waits and returns numpy."""
    out = hg.hardtanh_backward(grad, x, min_val=-0.5, max_val=0.5)
    assert_type(out, npt.NDArray[Any])
    return out


def planned(device: hg.Device, x: hg.Tensor, runs: int) -> hg.Tensor:
    """Phase 1 once, phase 2 ``runs`` times, with a workspace this script allocates."""
    with hg.HardtanhPlan(x, -2.0, 2.0, repeatable=True) as plan:
        assert_type(plan, hg.HardtanhPlan)
        workspace = device.allocate(plan.workspace_size) if plan.workspace_size else None
        for _ in range(runs):
            y = plan.run(workspace, sync=True)
            assert_type(y, hg.Tensor)
        if workspace is not None:
            workspace.close()
        assert_type(plan.out, hg.Tensor)
        return plan.out


def main() -> int:
    rng = np.random.default_rng(0)
    grad = rng.standard_normal((4, 8)).astype(np.float32)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    with hg.Device(0) as device:
        assert_type(device, hg.Device)
        on_device = gradient_on_device(device, grad, x)
        on_host = gradient_on_host(grad, x)
        if not np.array_equal(on_device, on_host):
            print("device and host results differ", file=sys.stderr)
            return 1
        t = hg.zeros((4, 8), "float16", device)
        assert_type(t.shape, tuple[int, ...])
        y = planned(device, hg.from_numpy(x, device), 3)
        if not np.allclose(y.numpy(), np.clip(x, -2.0, 2.0)):
            print("plan result differs from numpy", file=sys.stderr)
            return 1
        in_place = hg.inplace_hardtanh(t, 0.0, 1.0)
        assert_type(in_place, hg.Tensor)
        assert_type(ops.hardswish(y), hg.Tensor)
        assert_type(hg.result_dtype(np.float16, "float32"), np.dtype[Any])
        stats = hg.memory_stats(device)
        assert_type(stats["in_use_bytes"], int)
        try:
            hg.Tensor.empty((2, 2), "float32", device).view((3, 3))
        except ValueError as exc:
            assert_type(exc, ValueError)
        except hg.AclError as exc:
            assert_type(exc.code, int)
        for handle in (t, y):
            handle.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
