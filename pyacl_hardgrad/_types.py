"""Type aliases shared by the package's annotations.

They exist for type checkers only (``if TYPE_CHECKING``): importing this module at run time
costs nothing and defines nothing, and the modules that use them import them the same way.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any, Sequence, Union

    import numpy as np
    import numpy.typing as npt
    from cffi import FFI

    from .scalar import Scalar

    #: a cdata of the binding (a pointer, an array, a struct): its C type is known at run time only
    CData = FFI.CData
    #: a dtype as the package takes it: a numpy dtype or type, a name ("float32", "bf16") or an
    #: aclDataType code
    DTypeLike = Union[npt.DTypeLike, int]
    #: a shape: a sequence of dims, or one dim
    ShapeLike = Union[int, np.integer[Any], Sequence[Union[int, np.integer[Any]]]]
    #: a host value for a tensor argument: a numpy array, (nested) sequences of numbers, a number
    HostArray = Union["npt.NDArray[Any]", Sequence[Any], float, complex, np.generic]
    #: a host buffer the copies take: bytes-like objects and numpy arrays (C-contiguous)
    HostBuffer = Union[bytes, bytearray, memoryview, "npt.NDArray[Any]"]
    #: a number (a Scalar's value): Python's or numpy's
    Number = Union[complex, np.number[Any], np.bool_]
    #: a real number argument (``float`` also takes ``int``)
    Real = Union[float, np.floating[Any], np.integer[Any]]
    #: a scalar argument of an operator: a Scalar or a real number (a float32 Scalar)
    ScalarLike = Union[Scalar, Real]
