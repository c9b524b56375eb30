"""Profiling (acl_prof.h, libmsprofiler, ``hg.profile``): a C program (tests/c/prof_sample.c) and a
Python script profile a sample run -- an operator on each of two streams with an event between
them, copies, marks and ranges -- and the timeline they write is checked against the Trace Event
Format's rules (``trace_problems``) and for every event the run must produce: the operators with
their shapes, dtypes and bytes on their streams, the copies, flows from each launch to its run and
from the event record to the wait, the device memory counters, the marks.  Without profiling
nothing is written."""
from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import textwrap
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from conftest import C_DIR

HOST_PID = 1000000
PHASES = set("XBEiICsftbenMPOND")


# ---------------------------------------------------------------- the format's rules

def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def trace_problems(events: Any) -> list[str]:
    """Every way ``events`` breaks the Trace Event Format (JSON array form) as this package writes
    it; [] for a valid trace."""
    if not isinstance(events, list):
        return ["the trace is not a JSON array of events"]
    bad: list[str] = []
    stacks: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    flows: dict[Any, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: {"s": [], "f": []})
    ranges: dict[tuple[Any, Any], dict[str, list[dict[str, Any]]]] = defaultdict(lambda: {"b": [], "e": []})
    slices: dict[tuple[int, int], list[tuple[float, float]]] = defaultdict(list)
    named_pids: set[int] = set()
    named_threads: set[tuple[int, int]] = set()
    for i, e in enumerate(events):
        where = f"event {i} ({e.get('ph') if isinstance(e, dict) else e!r})"
        if not isinstance(e, dict):
            bad.append(f"{where}: not an object")
            continue
        ph = e.get("ph")
        if ph not in PHASES:
            bad.append(f"{where}: unknown phase {ph!r}")
            continue
        if not _int(e.get("pid")) or not _int(e.get("tid")):
            bad.append(f"{where}: pid and tid must be ints")
            continue
        if not _num(e.get("ts")):
            bad.append(f"{where}: ts must be a number")
            continue
        if ph != "E" and not isinstance(e.get("name"), str):
            bad.append(f"{where}: name must be a string")
        if "args" in e and not isinstance(e["args"], dict):
            bad.append(f"{where}: args must be an object")
        key = (e["pid"], e["tid"])
        if ph == "X":
            if not _num(e.get("dur")) or e["dur"] < 0:
                bad.append(f"{where}: X needs a non-negative dur")
            else:
                slices[key].append((e["ts"], e["ts"] + e["dur"]))
        elif ph == "B":
            stacks[key].append(e)
        elif ph == "E":
            if not stacks[key]:
                bad.append(f"{where}: E without an open B on {key}")
            else:
                b = stacks[key].pop()
                if e["ts"] < b["ts"]:
                    bad.append(f"{where}: E before its B")
        elif ph in ("i", "I"):
            if e.get("s") not in ("g", "p", "t"):
                bad.append(f"{where}: instant needs s in g/p/t")
        elif ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args or not all(_num(v) for v in args.values()):
                bad.append(f"{where}: C needs args of numbers")
        elif ph in ("s", "f"):
            if "id" not in e:
                bad.append(f"{where}: flow event without id")
                continue
            if ph == "f" and e.get("bp") != "e":
                bad.append(f"{where}: flow end must bind to its enclosing slice (bp 'e')")
            flows[(e.get("cat"), e["id"])][ph].append(e)
        elif ph in ("b", "e"):
            if "id" not in e or "cat" not in e:
                bad.append(f"{where}: async event needs id and cat")
                continue
            ranges[(e["cat"], e["id"])][ph].append(e)
        elif ph == "M":
            args = e.get("args")
            if e.get("name") in ("process_name", "thread_name"):
                if not isinstance(args, dict) or not isinstance(args.get("name"), str):
                    bad.append(f"{where}: {e.get('name')} needs args.name")
                    continue
                if e["name"] == "process_name":
                    named_pids.add(e["pid"])
                else:
                    named_threads.add(key)
    for key, open_b in stacks.items():
        if open_b:
            bad.append(f"{len(open_b)} B event(s) on {key} never end")
    for fid, ends in flows.items():
        if len(ends["s"]) != 1 or len(ends["f"]) != 1:
            bad.append(f"flow {fid}: {len(ends['s'])} start(s) and {len(ends['f'])} end(s), one each expected")
            continue
        s, f = ends["s"][0], ends["f"][0]
        if f["ts"] < s["ts"]:
            bad.append(f"flow {fid}: ends before it starts")
        for e in (s, f):
            if not any(lo <= e["ts"] <= hi for lo, hi in slices[(e["pid"], e["tid"])]):
                bad.append(f"flow {fid}: its {e['ph']} at {e['ts']} lies in no slice of {(e['pid'], e['tid'])}")
    for rid, ends in ranges.items():
        if len(ends["b"]) != 1 or len(ends["e"]) != 1:
            bad.append(f"range {rid}: {len(ends['b'])} begin(s) and {len(ends['e'])} end(s)")
        elif ends["e"][0]["ts"] < ends["b"][0]["ts"]:
            bad.append(f"range {rid}: ends before it begins")
    used_pids = {e["pid"] for e in events if isinstance(e, dict) and _int(e.get("pid")) and e.get("ph") != "M"}
    for pid in sorted(used_pids - named_pids):
        bad.append(f"pid {pid} has no process_name")
    used_threads = {(e["pid"], e["tid"]) for e in events if isinstance(e, dict) and e.get("ph") in ("X", "B", "i")}
    for key in sorted(used_threads - named_threads):
        bad.append(f"thread {key} has no thread_name")
    return bad


# ---------------------------------------------------------------- reading a result folder

LAYOUT = re.compile(r"PROF_\d{6}_\d{17}_[A-Z]{16}$")


def result_trace(out: Path) -> tuple[Path, list[dict[str, Any]]]:
    """The one session folder under out in msprof's layout, and its timeline's events."""
    sessions = [p for p in out.iterdir() if p.is_dir()]
    assert len(sessions) == 1 and LAYOUT.match(sessions[0].name), [p.name for p in out.iterdir()]
    prof = sessions[0]
    assert (prof / "device_0" / "data").is_dir() and (prof / "host" / "data").is_dir()
    info = json.loads((prof / "device_0" / "info.json.0").read_text())
    assert info["device_id"] == 0 and info["tasks"] > 0
    traces = list((prof / "mindstudio_profiler_output").glob("msprof_*.json"))
    assert len(traces) == 1 and re.fullmatch(r"msprof_\d{14}\.json", traces[0].name)
    return traces[0], json.loads(traces[0].read_text())


def names(events: list[dict[str, Any]], kind: str) -> dict[tuple[int, int], str]:
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == kind}


def device_slices(events: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [e for e in events if e["ph"] == "X" and e["pid"] == 0 and e["name"] == name]


def flow_between(events: list[dict[str, Any]], start: dict[str, Any], end: dict[str, Any], cat_name: str) -> bool:
    """A flow named cat_name starts inside slice `start` and ends inside slice `end`."""
    def inside(e: dict[str, Any], x: dict[str, Any]) -> bool:
        return (e["pid"], e["tid"]) == (x["pid"], x["tid"]) and x["ts"] <= e["ts"] <= x["ts"] + x["dur"]
    starts = {e["id"]: e for e in events if e["ph"] == "s" and e["name"] == cat_name and inside(e, start)}
    return any(e["ph"] == "f" and e["id"] in starts and inside(e, end) for e in events)


def check_sample_run(events: list[dict[str, Any]], host_mark: str, range_name: str | None, push_name: str,
                     marker: str | None, memory_peak: int, ends_empty: bool = True, sync_copies: bool = False) -> None:
    """What both sample runs must show (see the modules' docstrings)."""
    problems = trace_problems(events)
    assert not problems, "\n".join(problems)
    procs = {pid: n for (pid, _), n in names(events, "process_name").items()}
    assert procs[0] == "device 0" and procs[HOST_PID].startswith("host")
    threads = names(events, "thread_name")

    ht = device_slices(events, "aclnnHardtanhBackward")
    hs = device_slices(events, "aclnnHardsigmoidBackward")
    assert len(ht) == 1 and len(hs) == 1
    a, b = ht[0]["tid"], hs[0]["tid"]
    assert a != b, "the two operators ran on two streams"
    assert threads[(0, a)] == f"stream {a}" and threads[(0, b)] == f"stream {b}"
    for op in (ht[0], hs[0]):
        args = op["args"]
        assert args["Task Type"] == "KERNEL"
        assert args["Input Shapes"] == "8,8;8,8" and args["Output Shapes"] == "8,8"
        assert args["Input Data Types"] == "DT_FLOAT;DT_FLOAT" and args["Output Data Types"] == "DT_FLOAT"
        assert args["bytes"] == 3 * 64 * 4
        assert op["dur"] >= 0

    if sync_copies:   # aclrtMemcpy: a call on the host thread (kind: aclrtMemcpyKind)
        host_copies = [e for e in events if e["ph"] == "X" and e["pid"] == HOST_PID and e["name"] == "aclrtMemcpy"]
        assert {c["args"]["kind"] for c in host_copies} == {1, 2}
        assert all(c["args"]["size"] == 256 for c in host_copies)
        copies = []
    else:
        copies = [e for e in events
                  if e["ph"] == "X" and e["pid"] == 0 and e["args"].get("Task Type") == "MEMCPY_ASYNC"]
        to_dev = [c for c in copies if c["args"]["kind"] == "HOST_TO_DEVICE"]
        to_host = [c for c in copies if c["args"]["kind"] == "DEVICE_TO_HOST"]
        assert to_dev and to_host and all(c["args"]["size"] == 256 for c in copies)

    record = [e for e in events if e["ph"] == "X" and e["pid"] == 0 and e["args"].get("Task Type") == "EVENT_RECORD"]
    wait = [e for e in events if e["ph"] == "X" and e["pid"] == 0 and e["args"].get("Task Type") == "EVENT_WAIT"]
    assert len(record) == 1 and len(wait) == 1
    assert record[0]["tid"] == a and wait[0]["tid"] == b
    assert flow_between(events, record[0], wait[0], "event"), "no flow from the record to the wait"

    launches = [e for e in events if e["ph"] == "X" and e["pid"] == HOST_PID and e["cat"] == "launch"]
    for task in (ht[0], hs[0], *copies, record[0], wait[0]):
        assert any(flow_between(events, ln, task, "launch") for ln in launches), f"no launch flow to {task}"

    samples = [e["args"]["bytes in use"] for e in events if e["ph"] == "C" and e["name"] == "device memory"]
    assert max(samples) >= memory_peak
    if ends_empty:
        assert samples[-1] == 0

    instants = [e["name"] for e in events if e["ph"] == "i" and e["pid"] == HOST_PID]
    assert host_mark in instants
    assert [e["name"] for e in events if e["ph"] == "B"] == [push_name]
    assert [e["name"] for e in events if e["ph"] == "b"] == ([range_name] if range_name else [])
    if marker is not None:
        assert marker in instants
        on_stream = device_slices(events, marker)
        assert len(on_stream) == 1 and on_stream[0]["tid"] == b and on_stream[0]["args"]["Task Type"] == "MARKER"


# ---------------------------------------------------------------- the validator can fail

def _valid_trace() -> list[dict[str, Any]]:
    return [
        {"ph": "M", "pid": 0, "tid": 0, "ts": 0, "name": "process_name", "args": {"name": "device 0"}},
        {"ph": "M", "pid": 0, "tid": 3, "ts": 0, "name": "thread_name", "args": {"name": "stream 3"}},
        {"ph": "X", "pid": 0, "tid": 3, "ts": 10, "dur": 5, "name": "op"},
        {"ph": "X", "pid": 0, "tid": 3, "ts": 20, "dur": 5, "name": "op2"},
        {"ph": "s", "pid": 0, "tid": 3, "ts": 10, "name": "f", "cat": "flow", "id": 1},
        {"ph": "f", "pid": 0, "tid": 3, "ts": 21, "name": "f", "cat": "flow", "id": 1, "bp": "e"},
        {"ph": "B", "pid": 0, "tid": 3, "ts": 9, "name": "push"},
        {"ph": "E", "pid": 0, "tid": 3, "ts": 30},
        {"ph": "b", "pid": 0, "tid": 3, "ts": 1, "name": "r", "cat": "tx", "id": 7},
        {"ph": "e", "pid": 0, "tid": 3, "ts": 2, "name": "r", "cat": "tx", "id": 7},
        {"ph": "i", "pid": 0, "tid": 3, "ts": 4, "name": "mark", "s": "t"},
        {"ph": "C", "pid": 0, "tid": 0, "ts": 4, "name": "mem", "args": {"bytes": 3}},
    ]


BREAKAGES = {
    "x_without_dur": lambda t: t[2].pop("dur"),
    "negative_dur": lambda t: t[2].update(dur=-1),
    "string_pid": lambda t: t[2].update(pid="0"),
    "unmatched_flow": lambda t: t[5].update(id=2),
    "flow_outside_slices": lambda t: t[4].update(ts=16),
    "flow_end_unbound": lambda t: t[5].pop("bp"),
    "flow_backwards": lambda t: (t[4].update(ts=22), t[2].update(ts=21)),
    "open_push": lambda t: t.pop(7),
    "range_without_end": lambda t: t.pop(9),
    "instant_without_scope": lambda t: t[10].pop("s"),
    "counter_of_text": lambda t: t[11].update(args={"bytes": "3"}),
    "nameless_process": lambda t: t.pop(0),
    "nameless_thread": lambda t: t.pop(1),
    "unknown_phase": lambda t: t[3].update(ph="Q"),
}


def test_the_format_check_accepts_a_valid_trace():
    assert trace_problems(_valid_trace()) == []


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_the_format_check_rejects_each_broken_rule(breakage):
    trace = copy.deepcopy(_valid_trace())
    BREAKAGES[breakage](trace)
    assert trace_problems(trace), f"{breakage} went unnoticed"


# ---------------------------------------------------------------- the C program

@pytest.fixture(scope="module")
def prof_sample(toolchain, tmp_path_factory):
    """tests/c/prof_sample.c linked as CANN's profiling samples are (-lmsprofiler)."""
    exe = tmp_path_factory.mktemp("prof") / "prof_sample"
    cc = os.environ.get("CC", "cc")
    cmd = [cc, "-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-pthread", str(C_DIR / "prof_sample.c"),
           "-o", str(exe), *toolchain.link_args(), "-lmsprofiler", "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


def test_c_sample_run_writes_a_valid_timeline_with_every_expected_event(prof_sample, tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run([str(prof_sample), str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "PASS prof_sample" in proc.stdout, proc.stdout + proc.stderr
    trace, events = result_trace(out)
    check_sample_run(events, host_mark="sample run", range_name="two streams", push_name="sample run",
                     marker="copied back", memory_peak=4 * 256)
    summary = [ln for ln in proc.stderr.splitlines() if ln.startswith("[pyacl_hardgrad] profile:")]
    assert len(summary) == 1 and str(trace) in summary[0]
    assert re.search(r": (\d+) tasks on 2 streams of 1 devices, (\d+) flows", summary[0])


def test_c_sample_run_without_profiling_writes_nothing(prof_sample, tmp_path):
    out = tmp_path / "off"
    out.mkdir()
    proc = subprocess.run([str(prof_sample), "--off", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "PASS prof_sample" in proc.stdout, proc.stdout + proc.stderr
    assert list(out.iterdir()) == []
    assert "profile:" not in proc.stderr


# ---------------------------------------------------------------- Python: hg.profile

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import pyacl_hardgrad as hg

    out = sys.argv[1]
    grad = np.arange(64, dtype=np.float32).reshape(8, 8) / 16
    x = ((np.arange(64) % 5 - 2) * 0.5).astype(np.float32).reshape(8, 8)
    with hg.Device(0) as dev, dev.create_stream() as a, dev.create_stream() as b:
        with hg.profile(out) as prof:
            with prof.range("python sample"):
                g, t = hg.Tensor(grad, dev), hg.Tensor(x, dev)
                g2, t2 = hg.Tensor.empty((8, 8), device=dev), hg.Tensor.empty((8, 8), device=dev)
                g2.copy_from(grad)
                t2.copy_from(x)
                mid = hg.hardtanh_backward(g, t, -1.0, 1.0, stream=a)
                ev = a.record()
                b.wait(ev)
                out_t = hg.hardsigmoid_backward(mid, t, stream=b)
                prof.mark("queued on b", stream=b)
                result = out_t.numpy()
                prof.mark("done")
            for o in (g, t, g2, t2, mid, out_t, ev):
                o.close()
        assert prof.trace_path is not None and not prof.running
        print("TRACE", prof.trace_path)
        print("EVENTS", len(prof.events()))
    want = np.where((x > -1) & (x < 1), grad, 0) / 6
    assert np.allclose(result, want, rtol=1e-6), (result, want)
    print("PASS")
""")


def test_python_profile_writes_a_valid_timeline_with_every_expected_event(hg, tmp_path):
    script = tmp_path / "sample.py"
    script.write_text(SCRIPT)
    out = tmp_path / "out"
    env = dict(os.environ, PYACL_HARDGRAD_BACKEND="sim")
    proc = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True, timeout=300,
                          env=env, cwd=tmp_path)
    assert proc.returncode == 0 and "PASS" in proc.stdout, proc.stdout + proc.stderr
    trace, events = result_trace(out)
    assert f"TRACE {trace}" in proc.stdout
    check_sample_run(events, host_mark="done", range_name=None, push_name="python sample", marker="queued on b",
                     memory_peak=256, ends_empty=False, sync_copies=True)


def test_python_profile_records_nothing_outside_its_block(hg, tmp_path):
    with hg.profile(tmp_path / "p", devices=[0]) as prof:
        pass
    assert prof.trace_path is not None
    events = prof.events()
    assert not [e for e in events if e["ph"] == "X"]
    assert trace_problems(events) == []
    with pytest.raises(RuntimeError, match="one block"):
        prof.__enter__()


def test_python_profile_checks_its_arguments(hg, tmp_path):
    with pytest.raises(TypeError, match="out_dir"):
        hg.profile(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="devices"):
        hg.profile(tmp_path, devices=[])
    with pytest.raises(ValueError, match=r"devices \[5\]"):
        hg.profile(tmp_path, devices=[5])
    with pytest.raises(ValueError, match="twice"):
        hg.profile(tmp_path, devices=[0, 0])
    with pytest.raises(TypeError, match="memory"):
        hg.profile(tmp_path, memory=1)  # type: ignore[arg-type]
    with hg.profile(tmp_path / "q", devices=[0]) as prof:
        with pytest.raises(ValueError, match="128 bytes"):
            prof.mark("x" * 129)
        with pytest.raises(TypeError, match="message"):
            prof.mark(5)  # type: ignore[arg-type]
        with pytest.raises(hg.AclError, match="aclprofInit"):
            with hg.profile(tmp_path / "r", devices=[0]):
                pass


def test_the_summary_line_counts_what_the_timeline_holds(hg, tmp_path, capfd):
    with hg.Tensor.zeros((4,)) as g, hg.Tensor.zeros((4,)) as x:
        with hg.profile(tmp_path / "s", devices=[0]) as prof:
            with hg.hardsigmoid_backward(g, x) as y:
                y.numpy()   # waits for the stream, which then lets go of the tensors
    events = prof.events()
    tasks = Counter(e["args"]["Task Type"] for e in events if e["ph"] == "X" and e["pid"] == 0)
    assert tasks["KERNEL"] == 1
    line = [ln for ln in capfd.readouterr().err.splitlines() if "profile:" in ln][-1]
    assert f": {sum(tasks.values())} tasks on " in line and str(prof.trace_path) in line


# ---------------------------------------------------------------- pyACL: acl.prof

def test_pyacl_prof_session_writes_a_valid_timeline(hg, tmp_path):
    acl = hg.acl
    out = str(tmp_path / "pyacl")
    assert acl.prof.init(out) == 0
    assert acl.prof.init(out) == 100002                       # ACL_ERROR_REPEAT_INITIALIZE
    config = acl.prof.create_config([0], 0xFF, 0, 0x0002 | 0x0080)
    assert config != 0
    assert acl.prof.create_config([9], 0xFF, 0, 0x0002) == 0
    assert "deviceIdList[0] (9)" in acl.get_recent_err_msg()
    assert acl.prof.stop(config) == 100043                    # ACL_ERROR_PROF_NOT_RUN
    assert acl.prof.start(config) == 0
    stamp = acl.prof.create_stamp()
    assert acl.prof.set_stamp_trace_message(stamp, "pyacl mark", 10) == 0
    assert acl.prof.push(stamp) == 0
    range_id, ret = acl.prof.range_start(stamp)
    assert ret == 0 and range_id > 0
    with hg.Tensor.zeros((8,)) as g, hg.Tensor.zeros((8,)) as x:
        with hg.hardsigmoid_backward(g, x) as y:
            y.numpy()   # waits for the stream, which then lets go of the tensors
    assert acl.prof.mark(stamp) == 0
    assert acl.prof.range_stop(range_id) == 0
    assert acl.prof.range_stop(range_id) == 100000
    assert acl.prof.pop() == 0
    assert acl.prof.model_subscribe(1, 0) == 200006           # ACL_ERROR_FEATURE_UNSUPPORTED
    assert "offline models" in acl.get_recent_err_msg()
    assert acl.prof.get_op_desc_size() == (0, 200006)
    assert acl.prof.stop(config) == 0
    assert acl.prof.destroy_config(config) == 0
    assert acl.prof.finalize() == 0
    acl.prof.destroy_stamp(stamp)
    _, events = result_trace(Path(out))
    assert trace_problems(events) == []
    assert [e["name"] for e in events if e["ph"] == "i"] == ["pyacl mark"]
    assert [e["name"] for e in events if e["ph"] == "b"] == ["pyacl mark"]
    assert [e["name"] for e in events if e["ph"] == "X" and e["pid"] == 0] == ["aclnnHardsigmoidBackward"]
    with pytest.raises(TypeError, match="acl.prof.init args parse failed"):
        acl.prof.init(3)


def test_c_sample_run_is_clean_under_memcheck(prof_sample, tmp_path):
    import shutil
    if shutil.which("valgrind") is None or os.environ.get("PYACL_HARDGRAD_TEST_NO_VALGRIND") == "1":
        pytest.skip("valgrind is switched off (PYACL_HARDGRAD_TEST_NO_VALGRIND=1) or not installed")
    cmd = ["valgrind", "--tool=memcheck", "--error-exitcode=99", "--leak-check=full",
           "--errors-for-leak-kinds=definite", "--show-leak-kinds=definite", "-q",
           str(prof_sample), str(tmp_path / "o")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "PASS prof_sample" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize("inline", ["0", "1"])
def test_c_sample_run_is_race_free_under_threadsanitizer(tmp_path_factory, inline):
    from hg_cchecks import build_tsan
    work = tmp_path_factory.getbasetemp() / "prof_tsan"
    exe = work / "prof_sample"
    if not exe.exists():
        work.mkdir(exist_ok=True)
        exe = build_tsan(C_DIR / "prof_sample.c", work, libs=("ascendcl", "nnopbase", "opapi", "msprofiler", "m"))
    out = tmp_path_factory.mktemp("tsan_out")
    env = dict(os.environ, PYACL_HARDGRAD_INLINE=inline, TSAN_OPTIONS="halt_on_error=1")
    proc = subprocess.run([str(exe), str(out / "o")], capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0 and "PASS prof_sample" in proc.stdout, proc.stdout + proc.stderr[-4000:]
    assert "ThreadSanitizer" not in proc.stderr


def test_an_operator_planned_before_the_profile_shows_its_tensors_and_bytes(hg, tmp_path):
    with hg.Device(0) as dev, hg.Tensor.zeros((4, 4), device=dev) as g, hg.Tensor.zeros((4, 4), device=dev) as x, \
            hg.HardsigmoidBackwardPlan(g, x, repeatable=True) as plan:
        with hg.profile(tmp_path / "p", devices=[0]) as prof:
            plan.run(stream=dev.default_stream)
            dev.default_stream.synchronize()
    ran = [e for e in prof.events() if e["ph"] == "X" and e["pid"] == 0]
    assert [e["name"] for e in ran] == ["aclnnHardsigmoidBackward"]
    args = ran[0]["args"]
    assert "Input Shapes" not in args                      # not kept: planned before the profile
    # the names the operator gave its plan (hardsigmoid_backward's: positional) and every byte
    assert args["Tensors"] == "input 0;input 1;out" and args["bytes"] == 3 * 16 * 4
