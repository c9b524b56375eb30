"""The collectives benchmark (pyacl_hardgrad.bench.collectives) without its heavy part: sizes and
labels, the report's layout from a synthetic result, and the in-process worker on a small buffer
(two virtual devices, all-reduce against a copy, checked sum)."""
from __future__ import annotations

import json

import hg_hcclpy


def test_sizes_parse_and_label():
    from pyacl_hardgrad.bench import collectives as C
    assert C.DEFAULT_SIZES[0] == 1024 and C.DEFAULT_SIZES[-1] == 64 << 20 and len(C.DEFAULT_SIZES) == 9
    assert [C._parse_size(t) for t in ("1K", "4KiB", "64M", "512")] == [1024, 4096, 64 << 20, 512]
    assert [C._label(n) for n in (1024, 64 << 20, 1000)] == ["1 KiB", "64 MiB", "1000 B"]


def test_report_has_a_row_per_size_with_the_ratio():
    from pyacl_hardgrad.bench import collectives as C
    row = {"nbytes": 1024, "ours_us": 10.0, "gloo_us": 30.0, "ours_gbps": 0.1, "gloo_gbps": 0.03, "x_gloo": 3.0,
           "iters": {"ours": 5, "gloo": 5}, "rounds_us": {"ours": [10.0], "gloo": [30.0]}}
    report = {"machine": {"cpu": "cpu", "cpus": 2, "python": "3", "loadavg_start": [1.0, 0, 0],
                          "loadavg_end": [1.0, 0, 0]},
              "settings": {"sizes": [1024], "rounds": 1, "batch_ms": 1.0}, "processes": [row],
              "inproc": {"nbytes": 64 << 20, "all_reduce_us": 20000.0, "memcpy_us": 10000.0,
                         "all_reduce_gbps": 3.3, "memcpy_gbps": 6.7, "of_memcpy": 0.5},
              "inproc_error": None, "seconds": 1.0}
    text = C.format_report(report)
    assert "| 1 KiB | 10.0 | 30.0 | 0.1 | 0.03 | 3.00 |" in text
    assert "(median per round): 0.50" in text


def test_inproc_worker_times_an_all_reduce_and_a_copy():
    proc = hg_hcclpy.run_python(
        "import json; from pyacl_hardgrad.bench import collectives as C; "
        "print(json.dumps(C._inproc_worker(1 << 16, 2, 2.0)))", devices=2)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    assert r["nbytes"] == 1 << 16
    assert r["all_reduce_us"] > 0 and r["memcpy_us"] > 0 and r["of_memcpy"] > 0
