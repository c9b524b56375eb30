"""hgGetLiveCounts(): what the embedded runtime has alive right now (for leak checks)."""
from __future__ import annotations

from ._binding import ffi, lib
from .errors import check

FIELDS = ("deviceAllocations", "deviceBytes", "hostAllocations", "tensors", "scalars", "executors",
          "streams", "events", "contexts")


def live_counts() -> dict[str, int]:
    """{field: count} from hgGetLiveCounts (ApiNotSupportedError on a real CANN install)."""
    c = ffi.new("hgLiveCounts *")
    check(lib.hgGetLiveCounts(c), "hgGetLiveCounts")
    return {f: int(getattr(c, f)) for f in FIELDS}
