"""docs/results/small_work_medians.py against a fake weft-small-work: the medians and maxima over
invocations per cell, and its error paths (run: .venv/bin/python -m pytest -q tools/tests)."""
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "results", "small_work_medians.py")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *map(str, args)], capture_output=True, text=True)


def fake_tool(tmp_path, ratios):
    """A weft-small-work whose n-th invocation prints T2/T1 = T4/T1 = ratios[n] for every policy."""
    counter = tmp_path / "n"
    counter.write_text("0")
    tool = tmp_path / "weft-small-work"
    tool.write_text(f"""#!{sys.executable}
import sys
c = open({str(counter)!r}).read(); n = int(c); open({str(counter)!r}, "w").write(str(n + 1))
r = {ratios!r}[n]
print("small work: ...")
print("policy T1_ns T2_ns T4_ns T2/T1 T4/T1")
for p in sys.argv[5:]:
    print(p, 100, 100, 100, r, r + 1)
""")
    tool.chmod(0o755)
    return tool


def test_medians_and_maxima_per_cell(tmp_path):
    # 3 rounds x 3 kernels = 9 invocations; fib(12) gets invocations 0, 3, 6.
    ratios = [1.0, 2.0, 3.0, 1.3, 2.2, 3.3, 1.1, 2.1, 3.9]
    r = run(fake_tool(tmp_path, ratios), 3, "lazy-bf,wool")
    assert r.returncode == 0, r.stderr
    rows = [l for l in r.stdout.splitlines() if l.startswith("| lazy-bf") or l.startswith("| wool")]
    assert len(rows) == 2
    assert rows[0] == "| lazy-bf | 1.10, 2.10 (1.30, 2.30) | 2.10, 3.10 (2.20, 3.20) | 3.30, 4.30 (3.90, 4.90) |"
    assert rows[1].split(" | ", 1)[1] == rows[0].split(" | ", 1)[1]


def test_bad_arguments_and_missing_binary(tmp_path):
    r = run("x")
    assert r.returncode != 0 and "usage:" in r.stderr
    r = run(tmp_path / "none", 2)
    assert r.returncode != 0 and "no executable" in r.stderr


def test_a_failing_tool_stops_with_its_status(tmp_path):
    tool = tmp_path / "weft-small-work"
    tool.write_text("#!/bin/sh\necho 'bad policy' >&2\nexit 2\n")
    tool.chmod(0o755)
    r = run(tool, 1)
    assert r.returncode != 0 and "exited 2" in r.stderr and "bad policy" in r.stderr
