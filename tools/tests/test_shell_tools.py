"""Error paths of tools/join_cost.sh and tools/flat_loops.sh against fake build folders: a missing
binary, a bad policy or kernel is a message and a non-zero status, never a table of nothing
(run: .venv/bin/python -m pytest -q tools/tests)."""
import os
import shutil
import subprocess

import pytest

TOOLS = os.path.join(os.path.dirname(__file__), "..")


def script(name, *args):
    return subprocess.run(["bash", os.path.join(TOOLS, name), *map(str, args)], capture_output=True, text=True)


def fake_build(tmp_path, program, body):
    (tmp_path / "tools").mkdir()
    p = tmp_path / "tools" / program
    p.write_text("#!/bin/sh\n" + body)
    p.chmod(0o755)
    return tmp_path


def test_join_cost_without_the_binary(tmp_path):
    r = script("join_cost.sh", tmp_path)
    assert r.returncode != 0 and r.stdout == "" and "no " + str(tmp_path / "tools" / "weft-overhead") in r.stderr


@pytest.mark.skipif(not shutil.which("valgrind") or not shutil.which("callgrind_annotate"), reason="no valgrind")
def test_join_cost_bad_policy_stops_before_callgrind(tmp_path):
    build = fake_build(tmp_path, "weft-overhead", 'echo "weft-overhead: weft: unknown policy \\"$2\\"" >&2; exit 2\n')
    r = script("join_cost.sh", build, "bogus")
    assert r.returncode != 0 and r.stdout == ""
    assert "once bogus 2' failed: weft-overhead: weft: unknown policy \"bogus\"" in r.stderr


def test_flat_loops_bad_kernel_is_named_before_any_run(tmp_path):
    build = fake_build(tmp_path, "weft-flat-loops", 'echo "ran" >> "$(dirname "$0")/runs"\necho "$1 $2 $3 0.1 1"\n')
    r = script("flat_loops.sh", build, 1, 1, "stream strm")
    assert r.returncode == 2 and "unknown kernel 'strm'" in r.stderr and "Traceback" not in r.stderr
    assert not (build / "tools" / "runs").exists()


def test_flat_loops_failed_run_stops_with_its_status(tmp_path):
    build = fake_build(tmp_path, "weft-flat-loops", 'echo "weft-flat-loops: WORKERS must be ..." >&2; exit 2\n')
    r = script("flat_loops.sh", build, 1, 1, "stream", 2000)  # past the program's 1024
    assert r.returncode == 2 and "exited 2" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("reps, kernels, workers, why", [
    ("1", "stream", "1 x", "WORKERS: 'x' is not a positive integer"),
    ("1", "stream", "1 1", "WORKERS: 1 is given twice"),
    ("1", "stream poly stream", "1", "KERNELS: stream is given twice"),
    ("0", "stream", "1", "REPS must be a positive integer, got '0'"),
])
def test_flat_loops_bad_workers_reps_or_a_repeat_is_named_before_any_run(tmp_path, reps, kernels, workers, why):
    # WORKERS "1 x" stopped only after every WORKERS=1 run, with no table; "1 1" ran twice and kept
    # one round of each pair (the table's dict keys collide): found by stop 49's tools hunt
    build = fake_build(tmp_path, "weft-flat-loops", 'echo "ran" >> "$(dirname "$0")/runs"\necho "$1 $2 $3 0.1 1"\n')
    r = script("flat_loops.sh", build, 1, reps, kernels, workers)
    assert r.returncode == 2 and why in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (build / "tools" / "runs").exists()


SIM = os.path.join(os.path.dirname(__file__), "..", "..", "sim")


def test_sim_experiments_without_the_binary_names_it(tmp_path):
    # Found by stop 51's commands hunt: a build folder without weft-sim ran into bash's
    # "No such file or directory" on the first study, with no word of what to build.
    r = subprocess.run(["bash", os.path.join(SIM, "experiments.sh"), str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == ""
    assert "no " + str(tmp_path / "sim" / "weft-sim") in r.stderr and "usage: sim/experiments.sh" in r.stderr


def test_sim_experiments_takes_an_absolute_build_folder(tmp_path):
    # It was always taken relative to the repository root: /tmp/b became ROOT//tmp/b.  The fake
    # weft-sim fails at once, so no study writes anything into docs/results/sim.
    (tmp_path / "sim").mkdir()
    fake = tmp_path / "sim" / "weft-sim"
    fake.write_text('#!/bin/sh\necho "fake weft-sim ran" >&2; exit 3\n')
    fake.chmod(0o755)
    r = subprocess.run(["bash", os.path.join(SIM, "experiments.sh"), str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 3 and "fake weft-sim ran" in r.stderr


def fake_bench(tmp_path, serial_s, weft_s):
    bench = tmp_path / "bench"
    bench.mkdir()
    for name, secs in (("weft-bench-serial", serial_s), ("weft-bench-weft", weft_s)):
        p = bench / name
        p.write_text('#!/bin/sh\nfor r in 1 2 3; do echo \'{"time_s": %s}\'; done\n' % secs)
        p.chmod(0o755)
    return bench


def test_two_copies_ceiling_computes_the_ratios(tmp_path):
    # Fake binaries that take no time: two copies at once "run" as fast as one (throughput 2.00x),
    # weft's 0.08 s against the serial 0.1 s is a speedup of 1.25, 0.62 of what two copies get.
    r = script("two_copies_ceiling.sh", fake_bench(tmp_path, 0.1, 0.08), 2, "tsp", "quick")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ("tsp: serial alone 0.1000 s, two serial copies at once 0.1000 s (throughput 2.00x one), "
                                "weft 2 workers 0.0800 s: speedup 1.25, 0.62 of the two copies'")


@pytest.mark.parametrize("args, why", [((), "no build/bench/weft-bench-serial"), (("ROUNDS",), "ROUNDS must be a positive integer, got '0'")])
def test_two_copies_ceiling_refuses_before_any_run(tmp_path, args, why):
    bench = fake_bench(tmp_path, 0.1, 0.08) if args else tmp_path / "build" / "bench"
    r = subprocess.run(["bash", os.path.join(TOOLS, "two_copies_ceiling.sh"), *([str(bench), "0"] if args else [])],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == "" and why in r.stderr and "usage:" in r.stderr
