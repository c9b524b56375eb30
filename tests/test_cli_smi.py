"""``pyacl-hardgrad smi`` lays the devices out as ``npu-smi info`` does (a version line, ``+===+``
separators, a row per device: id, SoC name, health, memory used / total in MB; then a process
table), ``smi --json`` gives the same facts, and ``hg.smi()`` in a program shows that program's
own use of each device."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hg_cli import VIAS, clean_env, run

DEVICES = dict(PYACL_HARDGRAD_DEVICE_COUNT="3", PYACL_HARDGRAD_DEVICE_MEMORY="2G", PYACL_HARDGRAD_SOC="Ascend910B2")


def parse_table(text: str) -> dict:
    """The smi table's parts: header text, device rows and process rows (cells split on '|'),
    the live-objects text; checks the frame (every line a '+...+' rule or a '| ... |' row, all
    of one width) on the way."""
    lines = text.splitlines()
    width = len(lines[0])
    assert all(len(ln) == width for ln in lines), text
    assert all((ln[0], ln[-1]) in (("+", "+"), ("|", "|")) for ln in lines), text
    rules = [i for i, ln in enumerate(lines) if ln.startswith("+")]
    assert lines[0] == "+" + "-" * (width - 2) + "+" == lines[-1]
    header = lines[1].strip("| ").strip()
    blocks: list[list[str]] = []                 # the rows between consecutive rules
    for a, b in zip(rules, rules[1:]):
        blocks.append(lines[a + 1:b])
    # [header], [column names], device rows..., (empty between tables), [column names], process rows..., [live]
    cells = [[[c.strip() for c in row.strip("|").split("|")] for row in block] for block in blocks]
    col_heads = [i for i, blk in enumerate(cells) if blk and blk[0][0].startswith("NPU ")]
    assert len(col_heads) == 2, text
    dev_head, proc_head = col_heads
    for i in (dev_head, proc_head):              # npu-smi's '+===+' under the column names
        assert set(lines[rules[i + 1]]) == {"+", "="}
    devices = [blk[0] for blk in cells[dev_head + 1:proc_head - 1] if blk]
    processes = [blk[0] for blk in cells[proc_head + 1:-1]]
    live = " ".join(row[0] for row in cells[-1])
    return {"header": header, "device_columns": cells[dev_head][0], "devices": devices,
            "process_columns": cells[proc_head][0], "processes": processes, "live": live}


@pytest.mark.parametrize("via", VIAS)
def test_smi_lays_out_every_device_like_npu_smi_info(hg, tmp_path, via):
    proc = run(["smi"], tmp_path, via, **DEVICES)
    assert proc.returncode == 0, proc.stderr
    t = parse_table(proc.stdout)
    assert t["header"].startswith(f"pyacl-hardgrad {hg.__version__}") and "Version: " in t["header"]
    assert "Backend: embedded runtime" in t["header"]
    assert t["device_columns"] == ["NPU     Name", "Health", "HBM-Usage(MB)"]
    assert len(t["devices"]) == 3
    for i, (npu_name, health, usage) in enumerate(t["devices"]):
        assert npu_name.split() == [str(i), "Ascend910B2"]
        assert health == "OK"
        assert [int(v) for v in usage.split("/")] == [0, 2048]
    assert t["process_columns"][0] == "NPU     Process id"
    assert t["process_columns"][2].split() == ["Process", "memory(MB)", "Streams", "Blocks"]
    assert [int(row[0].split()[0]) for row in t["processes"]] == [0, 1, 2]
    pids = {row[0].split()[1] for row in t["processes"]}
    assert len(pids) == 1 and pids.pop().isdigit()
    if via == "script":
        assert {row[1] for row in t["processes"]} == {"pyacl-hardgrad"}
    assert all(row[2].split() == ["0", "0", "0"] for row in t["processes"])   # the command holds nothing
    assert t["live"].startswith("Live objects: tensors 0, scalars 0, executors 0, streams 0")


def test_smi_json_gives_the_devices_and_the_process_rows(hg, tmp_path):
    proc = run(["smi", "--json"], tmp_path, "module", **DEVICES)
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert d["version"] == hg.__version__ and d["backend"] == "sim" and d["cann_root"] is None
    assert [dev["id"] for dev in d["devices"]] == [0, 1, 2]
    for dev in d["devices"]:
        assert dev["name"] == "Ascend910B2" and dev["health"] == "OK" and dev["error"] is None
        assert dev["memory_total_mb"] == 2048 and dev["memory_total_bytes"] == 2 << 30
        assert dev["memory_used_mb"] == dev["memory_used_bytes"] == 0
    assert [p["device"] for p in d["processes"]] == [0, 1, 2]
    assert all(p["memory_bytes"] == p["streams"] == 0 and p["device_set"] is False for p in d["processes"])
    assert d["live_objects"]["tensors"] == 0 and set(d["live_objects"]) >= {"streams", "events", "deviceBytes"}


def test_smi_in_a_program_shows_its_own_use_per_device(hg, tmp_path):
    program = """
import json, numpy as np, pyacl_hardgrad as hg
with hg.Device(1) as dev, dev.create_stream() as s, hg.Tensor(np.zeros(1 << 20, np.float32), dev) as t:
    data = hg.smi()
    print(json.dumps(data))
    print(hg.format_smi(data))
after = hg.smi()
print(json.dumps([after["processes"], after["live_objects"]]))
print(hg.runtime_reference_count(), hg.live_counts()["streams"])
"""
    proc = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env=clean_env(PYACL_HARDGRAD_DEVICE_COUNT="2"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    data = json.loads(out[0])
    p0, p1 = data["processes"]
    assert p1["device"] == 1 and p1["device_set"] is True
    assert p1["memory_bytes"] >= 4 << 20 and p1["memory_mb"] >= 4 and p1["blocks"] >= 1
    assert p1["streams"] >= 1                       # the stream made above (and no other device's)
    assert p0["memory_bytes"] == p0["streams"] == 0 and p0["device_set"] is False
    assert data["devices"][1]["memory_used_bytes"] >= 4 << 20
    assert data["devices"][0]["memory_used_bytes"] == 0
    assert data["live_objects"]["tensors"] >= 1 and data["live_objects"]["streams"] >= 1
    t = parse_table("\n".join(out[1:-2]))
    row1 = t["processes"][1]
    assert row1[2].split() == [str(p1["memory_mb"]), str(p1["streams"]), str(p1["blocks"])]
    assert t["devices"][1][2].split("/")[0].strip() == str(data["devices"][1]["memory_used_mb"])
    processes, live = json.loads(out[-2])
    assert all(p["memory_bytes"] == p["streams"] == 0 for p in processes) and live["tensors"] == 0
    assert out[-1] == "0 0"                         # smi itself leaves no device set, nothing alive
