"""The seeded API fuzzer (tests/api_fuzzer.py) in the suite: a fixed seed and a CI-sized count,
in a child process so a crash or a hang is a failure, not a dead test run.  Run it for longer
with ``python tests/api_fuzzer.py --cases 10000 --seed N`` (from outside the checkout)."""
import subprocess
import sys
from pathlib import Path

import pytest

FUZZER = Path(__file__).with_name("api_fuzzer.py")


@pytest.mark.parametrize("seed", [1, 2])
def test_fuzzer_finds_no_crash_leak_wrong_result_or_unclear_error(hg, tmp_path, seed):
    proc = subprocess.run([sys.executable, str(FUZZER), "--cases", "1500", "--seed", str(seed)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    cases = int(proc.stdout.split()[0])       # a threaded close runs a few cases inside it
    assert cases >= 1500 and "0 findings" in proc.stdout, proc.stdout
