"""The checking-mode benchmark (pyacl_hardgrad.bench.checking) on a tiny run: both workers start (one
with checking mode on, one off), every (size, form) gets a row with per-round ratios, and bad forms
are refused by name."""
from __future__ import annotations

import pytest

from pyacl_hardgrad.bench import checking as C


def test_a_short_run_times_both_modes_for_every_size_and_form():
    rep = C.run(["hardsigmoid"], [8, 1024], ["noout", "plan_s"], rounds=2, batch_ms=1.0)
    assert [(r["n"], r["form"]) for r in rep["rows"]] == [(8, "noout"), (8, "plan_s"), (1024, "noout"),
                                                          (1024, "plan_s")]
    for r in rep["rows"]:
        assert r["off_ns"] > 0 and r["on_ns"] > 0
        assert r["ratio_min"] <= r["ratio"] <= r["ratio_max"]
    assert rep["peak_rss_kib"]["on"] and rep["peak_rss_kib"]["off"]
    text = C.format_report(rep)
    assert "hardsigmoid" in text and "on/off" in text and "peak RSS" in text


def test_an_unknown_form_is_refused_by_name():
    with pytest.raises(ValueError, match="forms: torch not among"):
        C.run(["hardsigmoid"], [8], ["torch"], rounds=1)


def test_an_unknown_operator_is_refused_by_name_before_any_worker_starts():
    with pytest.raises(ValueError, match="ops: hardtanh_backward not among the bench's operators .*hardsigmoid"):
        C.run(["hardsigmoid", "hardtanh_backward"], [8], ["noout"], rounds=1)


def test_sizes_take_suffixes():
    assert C._sizes("8,1K,1M") == [8, 1024, 1 << 20]
