"""Error paths of the tools' drivers (env_compare.py, trace_study.py, spawn_compare.py) against a fake
benchmark binary: a missing binary or a failed run is the command, its exit status and its stderr,
never a traceback (run: .venv/bin/python -m pytest -q tools/tests)."""
import os
import subprocess
import sys

TOOLS = os.path.join(os.path.dirname(__file__), "..")

# A stand-in for weft-bench-weft: lists two kernels; prints three JSON lines whose time says which
# policy ran (--policy, else WEFT_POLICY, as the real binary resolves it); fails on policy "bad".
FAKE_BENCH = """\
import json, os, sys
a = sys.argv[1:]
if a[:2] == ["--kernel", "list"]:
    print("fib nqueens")
    sys.exit(0)
pol = a[a.index("--policy") + 1] if "--policy" in a else os.environ.get("WEFT_POLICY", "lazy-bf")
if pol == "bad":
    print("weft: unknown policy 'bad'", file=sys.stderr)
    sys.exit(2)
for _ in range(3):
    print(json.dumps({"time_s": {"ws": 1.0, "wool": 2.0}.get(pol, 5.0), "stats": {"steals": 7}}))
"""


def fake_bench(tmp_path):
    p = tmp_path / "bench"
    p.write_text(f"#!{sys.executable}\n" + FAKE_BENCH)
    p.chmod(0o755)
    return str(p)


def tool(*args):
    return subprocess.run([sys.executable, os.path.join(TOOLS, args[0]), *args[1:]], capture_output=True, text=True)


def no_traceback(r):
    assert "Traceback" not in r.stderr, r.stderr


def test_env_compare_failed_run_names_command_status_and_stderr(tmp_path):
    r = tool("env_compare.py", "--var", "X", "--values", "1,2", "--policies", "bad", "--rounds", "1",
             "--bin", fake_bench(tmp_path))
    no_traceback(r)
    assert r.returncode == 1
    assert "--policy bad --reps 3: exit status 2" in r.stderr and "unknown policy 'bad'" in r.stderr


def test_env_compare_missing_binary(tmp_path):
    r = tool("env_compare.py", "--var", "X", "--values", "1,2", "--bin", str(tmp_path / "nope"))
    no_traceback(r)
    assert r.returncode == 2 and "nope --kernel list: cannot run it" in r.stderr


def test_env_compare_weft_policy_wins_over_its_own_policy(tmp_path):
    r = tool("env_compare.py", "--var", "WEFT_POLICY", "--values", "ws,wool", "--kernels", "fib", "--rounds", "1",
             "--bin", fake_bench(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "fib (WEFT_POLICY) 1.0000 7 2.0000 7 2.000" in r.stdout  # ws against wool, not lazy-bf twice


def test_env_compare_refuses_settings_its_own_flags_override(tmp_path):
    bench = fake_bench(tmp_path)
    r = tool("env_compare.py", "--var", "WEFT_POLICY", "--values", "ws,wool", "--policies", "lazy-bf", "--bin", bench)
    assert r.returncode == 2 and "--policy would override the variable" in r.stderr
    r = tool("env_compare.py", "--var", "WEFT_WORKERS", "--values", "1,2", "--bin", bench)
    assert r.returncode == 2 and "--workers (always given) overrides it" in r.stderr


def test_env_compare_refuses_a_weft_variable_that_is_no_setting(tmp_path):
    # The binary ignores it (its warning is on the stderr the driver keeps only on failure): the
    # table was every column one configuration, after the whole suite's runs (stop 51's config hunt).
    bench = fake_bench(tmp_path)
    for name in ("WEFT_STEAL_BACKOF_US", "weft_policy", "WEFT_HEARTBEAT"):
        r = tool("env_compare.py", "--var", name, "--values", "0,256", "--rounds", "1", "--bin", bench)
        no_traceback(r)
        assert r.returncode == 2 and f"--var {name} is not a weft setting" in r.stderr, r.stderr
        assert "WEFT_STEAL_BACKOFF_US" in r.stderr  # the settings are listed
    r = tool("env_compare.py", "--var", "WEFT_STEAL_BACKOFF_US", "--values", "0,256", "--kernels", "fib",
             "--rounds", "1", "--bin", bench)
    assert r.returncode == 0, r.stderr


def test_trace_study_failed_run_and_missing_binary(tmp_path):
    r = tool("trace_study.py", "overhead", fake_bench(tmp_path), "--kernels", "fib", "--workers", "1", "--policy",
             "bad", "--runs", "1")
    no_traceback(r)
    assert r.returncode == 1 and "--policy bad: exit status 2" in r.stderr and "unknown policy" in r.stderr
    r = tool("trace_study.py", "beats", str(tmp_path / "nope"))
    no_traceback(r)
    assert r.returncode == 2 and "cannot run it" in r.stderr


def test_spawn_compare_missing_binary_and_output_without_time(tmp_path):
    r = tool("spawn_compare.py", "--ports", f"x={tmp_path / 'nope'}", "3", "2", "1", "1")
    no_traceback(r)
    assert r.returncode == 2 and "nope dfs 3 2 1 1 -p elision: cannot run it" in r.stderr
    r = tool("spawn_compare.py", "--ports", f"x={fake_bench(tmp_path)}", "--runs", "1", "3", "2", "1", "1")
    no_traceback(r)
    assert r.returncode == 1 and "no 'Time:' line" in r.stderr


# A weft-lace-ports / Lace stand-in whose "Time:" line is in exponent form (printf %g of a short run)
FAKE_PORTS = """\
import sys
print("fib(" + sys.argv[2 if sys.argv[1] == "fib" else 1] + ") = 610")
print("Time: 1e-05")
"""


def fake_ports(path):
    path.write_text(f"#!{sys.executable}\n" + FAKE_PORTS)
    path.chmod(0o755)
    return str(path)


def test_spawn_compare_reads_a_time_in_exponent_form(tmp_path):
    ports = fake_ports(tmp_path / "ports")
    r = tool("spawn_compare.py", "--program", "fib", "--ports", f"x={ports}", "--runs", "1",
             "--workers", "1", "10")
    no_traceback(r)
    assert r.returncode == 0, r.stderr


def test_lace_compare_time_in_exponent_form_and_missing_binary(tmp_path):
    bench = tmp_path / "lace" / "benchmarks"
    bench.mkdir(parents=True)
    for name in ("fib-seq", "fib-lace"):
        fake_ports(bench / name)
    ports = fake_ports(tmp_path / "ports")
    r = tool("lace_compare.py", "--lace", str(tmp_path / "lace"), "--ports", ports, "--runs", "1",
             "--workers", "1", "--policies", "default", "fib", "10")
    no_traceback(r)
    assert r.returncode == 0, r.stderr
    r = tool("lace_compare.py", "--lace", str(tmp_path / "nolace"), "--ports", ports, "--runs", "1",
             "--workers", "1", "--policies", "default", "fib", "10")
    no_traceback(r)
    assert r.returncode == 2 and "cannot run it" in r.stderr and "fib-seq" in r.stderr


SYSTEMS_AB = os.path.join(TOOLS, "..", "docs", "results", "systems_ab.py")

# A bench binary: --kernel typo exits 2 with a message; "wrongsum" answers with another checksum.
FAKE_AB = """\
import json, sys
a = sys.argv[1:]
k = a[a.index("--kernel") + 1]
if k == "typo":
    print("unknown kernel 'typo'", file=sys.stderr)
    sys.exit(2)
for _ in range(int(a[a.index("--reps") + 1])):
    print(json.dumps({"time_s": 0.1, "checksum": "7" if "wrongsum" in sys.argv[0] else "42"}))
"""


def test_systems_ab_failures_are_reported_not_tracebacks(tmp_path):
    good, bad = tmp_path / "good", tmp_path / "wrongsum"
    for p in (good, bad):
        p.write_text(f"#!{sys.executable}\n" + FAKE_AB)
        p.chmod(0o755)
    ab = lambda *args: subprocess.run([sys.executable, SYSTEMS_AB, *args], capture_output=True, text=True)
    r = ab("--kernels", "fib", "--rounds", "1", f"a={good}:1", f"b={good}:2")
    assert r.returncode == 0 and "speed 1.00" in r.stdout, r.stderr
    r = ab("--kernels", "typo", "--rounds", "1", f"a={good}:1")
    no_traceback(r)
    assert r.returncode == 1 and "exit status 2" in r.stderr and "unknown kernel 'typo'" in r.stderr
    r = ab("--kernels", "fib", "--rounds", "1", f"a={good}:1", f"b={bad}:1")
    no_traceback(r)
    assert r.returncode == 3 and "differs from a P=1's 42" in r.stderr
    r = ab("--kernels", "fib", "--rounds", "0", f"a={good}:1")
    no_traceback(r)
    assert r.returncode == 2 and "--rounds and --reps must be at least 1" in r.stderr
    r = ab("--kernels", "fib", "--rounds", "1", f"a={tmp_path / 'nope'}:1")
    no_traceback(r)
    assert r.returncode == 2 and "cannot run it" in r.stderr


def test_zero_runs_or_rounds_is_a_usage_error(tmp_path):
    # 0 ran nothing, then took the median of no times (a traceback) or, in spawn_compare.py, said
    # "the runs disagree on the result: []"
    bench = fake_bench(tmp_path)
    for argv in (["env_compare.py", "--var", "X", "--values", "1,2", "--kernels", "fib", "--bin", bench,
                  "--rounds", "0"],
                 ["trace_study.py", "overhead", bench, "--kernels", "fib", "--runs", "0"],
                 ["spawn_compare.py", "--ports", f"a={bench}", "--runs", "0", "1", "2", "3", "4"],
                 ["heartbeat_study.py", "bound", "--kernels", "fib", "--runs", "-1"],
                 ["lace_compare.py", "--lace", str(tmp_path), "--ports", bench, "--runs", "0", "fib", "10"]):
        r = tool(*argv)
        no_traceback(r)
        assert r.returncode == 2, (argv, r.stderr)
        assert "must be an integer of at least 1" in r.stderr, (argv, r.stderr)


def test_thefts_table_without_matching_runs_is_an_error(tmp_path):
    # a kernel the results.json does not have printed a table of no column, exit 0; a missing
    # file was a traceback
    res = tmp_path / "results.json"
    res.write_text('{"medians": [{"kernel": "fib", "system": "weft", "status": "ok", "workers": 2, '
                   '"policy": "lazy-bf", "median_s": 0.5, "stats_median": {"steals": 3, "promotions": 4}}]}')
    r = tool("thefts_table.py", str(res), "--kernel", "fibb", "--policies", "lazy-bf")
    no_traceback(r)
    assert r.returncode == 2 and "no ok weft run of kernel 'fibb'" in r.stderr and "kernels with weft runs: fib" in r.stderr
    r = tool("thefts_table.py", str(tmp_path / "none.json"))
    no_traceback(r)
    assert r.returncode == 2 and "not a bench/run.py results.json" in r.stderr
    r = tool("thefts_table.py", str(res), "--kernel", "fib", "--policies", "lazy-bf")
    assert r.returncode == 0 and "| lazy-bf | 3 / 4 / 500.0 ms |" in r.stdout


def test_a_list_of_numbers_that_is_not_one_is_a_usage_error(tmp_path):
    # --workers 1,x (spawn_compare, lace_compare, trace_study) and heartbeat_study's --ns 3,x ended
    # in int()'s traceback, trace_study's after its first kernel's runs (found by stop 49's tools hunt)
    bench = fake_bench(tmp_path)
    for flag, argv in (("--workers", ["spawn_compare.py", "--ports", f"a={bench}", "--workers", "1,x", "1", "2", "3", "4"]),
                       ("--workers", ["lace_compare.py", "--lace", str(tmp_path), "--ports", bench, "--workers", "1,,2",
                                      "fib", "10"]),
                       ("--workers", ["trace_study.py", "overhead", bench, "--kernels", "fib", "--workers", "0"]),
                       ("--workers", ["trace_study.py", "beats", bench, "--kernels", "fib", "--workers", ""]),
                       ("--ns", ["heartbeat_study.py", "sweep", "--kernels", "fib", "--ns", "3,x"])):
        r = tool(*argv)
        no_traceback(r)
        assert r.returncode == 2, (argv, r.stderr)
        assert f"argument {flag}: must be a comma list of integers of at least 1" in r.stderr, (argv, r.stderr)


def test_a_label_or_value_given_twice_is_a_usage_error(tmp_path):
    # env_compare.py --bins a=X,a=Y kept only Y: a table of one binary against itself, exit 0; an item
    # without '=' ran the binary '' ("cannot run it: Permission denied"); spawn_compare.py --ports
    # a=X --ports a=Y merged both binaries' times into each row (found by stop 49's tools hunt)
    bench = fake_bench(tmp_path)
    for why, argv in (("label(s) given twice: a", ["env_compare.py", "--bins", f"a={bench},a={bench}", "--kernels", "fib"]),
                      ("needs LABEL=PATH", ["env_compare.py", "--bins", f"a={bench},{bench}", "--kernels", "fib"]),
                      ("value(s) given twice: 1", ["env_compare.py", "--var", "X", "--values", "1,2,1", "--bin", bench]),
                      ("label(s) given twice: a", ["spawn_compare.py", "--ports", f"a={bench}", "--ports", f"a={bench}",
                                                   "1", "2", "3", "4"]),
                      ("policy or form given twice", ["lace_compare.py", "--lace", str(tmp_path), "--ports", bench,
                                                      "--policies", "default,default", "fib", "10"])):
        r = tool(*argv)
        no_traceback(r)
        assert r.returncode == 2, (argv, r.stderr)
        assert why in r.stderr, (argv, r.stderr)


def test_thefts_table_marks_oversubscription_by_the_machine_of_the_results(tmp_path):
    # "(oversubscribed)" was decided by this machine's cpu count, not that of the machine the runs
    # were made on (the results' meta.machine.nproc): a 2-core run's P=8 read on a 16-core host
    # lost the mark, a 64-core run's P=8 read here gained it (found by stop 49's tools hunt)
    res = tmp_path / "results.json"
    cell = ('{"kernel": "fib", "system": "weft", "status": "ok", "workers": %d, "policy": "lazy-bf", '
            '"median_s": 0.5, "stats_median": {"steals": 3, "promotions": 4}}')
    medians = ", ".join(cell % w for w in (1, 2, 8, 4096))
    for nproc, marked in ((2, ["P=8", "P=4096"]), (4096, [])):
        res.write_text('{"meta": {"machine": {"nproc": %d}}, "medians": [%s]}' % (nproc, medians))
        r = tool("thefts_table.py", str(res), "--kernel", "fib", "--policies", "lazy-bf")
        assert r.returncode == 0, r.stderr
        for w in ("P=1", "P=2", "P=8", "P=4096"):
            assert (f"{w} (oversubscribed)" in r.stdout) == (w in marked), (nproc, r.stdout)


def test_trace_study_overhead_off_runs_trace_nothing_whatever_the_environment(tmp_path):
    # The "off" runs inherited the caller's WEFT_TRACE: with it set, off and on both traced and the
    # table said tracing costs nothing (found by stop 49's tools hunt)
    bench = tmp_path / "bench"
    bench.write_text(f"#!{sys.executable}\n" + "import json, os\n"
                     "print(json.dumps({'time_s': 2.0 if os.environ.get('WEFT_TRACE') else 1.0}))\n")
    bench.chmod(0o755)
    r = subprocess.run([sys.executable, os.path.join(TOOLS, "trace_study.py"), "overhead", str(bench), "--kernels",
                        "fib", "--workers", "1", "--runs", "1"], capture_output=True, text=True,
                       env=dict(os.environ, WEFT_TRACE=str(tmp_path / "mine.json")))
    assert r.returncode == 0, r.stderr
    assert "fib                1   1000.00   2000.00    2.000" in r.stdout, r.stdout


def test_a_json_line_without_the_fields_read_is_an_error_naming_them(tmp_path):
    # A binary whose JSON lines have no "stats" (weft-bench-serial, any peer's: KERNELS.md gives
    # stats to weft only) ended env_compare.py and trace_study.py beats in KeyError's traceback
    # (found by stop 49's tools hunt)
    bench = tmp_path / "bench"
    bench.write_text(f"#!{sys.executable}\n" + "import json, sys\n"
                     "if sys.argv[1:3] == ['--kernel', 'list']: print('fib'); sys.exit(0)\n"
                     "print(json.dumps({'time_s': 1.0, 'checksum': '5', 'ok': True}))\n")
    bench.chmod(0o755)
    for argv in (["env_compare.py", "--bins", f"a={bench},b={bench}", "--rounds", "1"],
                 ["trace_study.py", "beats", str(bench), "--kernels", "fib", "--workers", "1", "--runs", "1"]):
        r = tool(*argv)
        no_traceback(r)
        assert r.returncode == 1, (argv, r.stderr)
        assert "its JSON line has no stats" in r.stderr and "--kernel fib" in r.stderr, (argv, r.stderr)


def test_thefts_table_reads_the_kernel_not_its_steal_cost_variant(tmp_path):
    # --kernel stress: the steal-cost variant's cell (kernel stress too, at P=2) overwrote the plain
    # kernel's, so the table showed the variant's thefts and time (found by stop 49's tools hunt on
    # docs/results/results.json: 1,999 / 2,000 / 88.0 ms for lazy-bf instead of 1,404 / ... / 67.4 ms)
    res = tmp_path / "results.json"
    cell = ('{"kernel": "stress", "variant": "%s", "system": "weft", "status": "ok", "workers": 2, '
            '"policy": "%s", "reported_policy": "lazy-bf", "median_s": %s, "stats_median": {"steals": %d, "promotions": 9}}')
    cells = [cell % ("", "lazy-bf", "0.5", 3), cell % ("steal-cost:30000:2000", "lazy-bf", "0.9", 2000),
             cell % ("", "default", "0.7", 5)]
    for order in (cells, cells[::-1]):
        res.write_text('{"medians": [%s]}' % ", ".join(order))
        r = tool("thefts_table.py", str(res), "--kernel", "stress", "--policies", "lazy-bf")
        assert r.returncode == 0, r.stderr
        assert "| lazy-bf | 3 / 9 / 500.0 ms |" in r.stdout, r.stdout  # the explicit column over weft:default's
