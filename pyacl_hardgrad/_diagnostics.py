"""hgGetLiveCounts(): what the embedded runtime has alive right now (for leak checks)."""
from __future__ import annotations

from ._binding import ffi, lib
from .errors import check

FIELDS = ("deviceAllocations", "deviceBytes", "hostAllocations", "tensors", "scalars", "executors",
          "streams", "events", "contexts")


def live_counts(*, reserved: bool = False) -> dict[str, int]:
    """{field: count} from hgGetLiveCounts (ApiNotSupportedError on a real CANN install).

    ``deviceAllocations`` and ``deviceBytes`` count the device memory in use: the runtime's
    blocks less the idle ones the caching allocator keeps (``hg.memory_stats()``'s
    ``cached_blocks``/``cached_bytes``).  ``reserved=True`` gives the runtime's own count, idle
    cached blocks included (what aclrtGetMemInfo sees as used)."""
    c = ffi.new("hgLiveCounts *")
    check(lib.hgGetLiveCounts(c), "hgGetLiveCounts")
    out = {f: int(getattr(c, f)) for f in FIELDS}
    if not reserved:
        out["deviceAllocations"] -= int(lib.hgb_cache_idle_blocks())
        out["deviceBytes"] -= int(lib.hgb_cache_idle_bytes())
    return out
