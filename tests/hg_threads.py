"""Running a test body on several threads at once (the Python-layer race and sharing tests)."""
from __future__ import annotations

import threading


def run_threads(target, n: int) -> None:
    """Start ``n`` threads calling ``target(k)`` (k = 0 .. n - 1) and wait for all of them."""
    threads = [threading.Thread(target=target, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
