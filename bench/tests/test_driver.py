"""End-to-end tests of the benchmark driver (bench/run.py -> weftbench.cli.main) against
the fake binaries of bench/tools/fake_bench.py."""
import csv
import json

import pytest

from conftest import HAVE_MPL, fake_bench
from weftbench import cli
from weftbench import run as run_mod
from weftbench.binaries import child_env


# --- the fake itself obeys the protocol --------------------------------------------------

def test_fake_follows_protocol(env, capsys):
    assert fake_bench.main(["--system", "weft", "--kernel", "fib", "--size", "test",
                            "--workers", "2"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["system"] == "weft" and line["policy"] == "lazy-bf" and line["ok"] is True
    assert "joins" in line["stats"] and "steals" in line["stats"]
    assert fake_bench.main(["--system", "tbb", "--kernel", "nope", "--size", "test",
                            "--workers", "1"]) == 2
    assert fake_bench.main(["--system", "tbb", "--kernel", "fib", "--size", "huge",
                            "--workers", "1"]) == 2
    assert fake_bench.main(["--system", "tbb", "--kernel", "fib", "--size", "test",
                            "--workers", "0"]) == 2
    assert fake_bench.main(["--system", "tbb", "--kernel", "list"]) == 0
    assert "fib" in capsys.readouterr().out.split()


# --- medians and alternation -------------------------------------------------------------

def test_medians_of_every_run(env):
    env.configure({"times": {"serial/fib/1": [0.5, 0.1, 0.3, 0.2, 0.4],
                             "weft/fib/1": [0.6, 0.6, 0.9, 0.3, 0.45]}})
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib", "--workers", "1", "--runs", "5") == 0
    res = env.results()
    assert len([r for r in res["runs"] if r["label"] == "serial"]) == 5
    s = env.median("fib", 1, "serial")
    w = env.median("fib", 1, "weft:default")
    assert s["median_s"] == pytest.approx(0.3) and s["n_ok"] == 5
    assert s["min_s"] == pytest.approx(0.1) and s["max_s"] == pytest.approx(0.5)
    assert w["median_s"] == pytest.approx(0.6)
    assert w["t_over_ts"] == pytest.approx(2.0)
    assert w["reported_policy"] == "lazy-bf"
    rows = list(csv.DictReader((env.out / "results.csv").open()))
    row = [r for r in rows if r["label"] == "weft:default"][0]
    assert float(row["median_s"]) == pytest.approx(0.6)
    assert float(row["t_over_ts"]) == pytest.approx(2.0)
    assert "| fib | 300 ms | 2.00 |" in env.report()


def test_runs_alternate_round_robin(env):
    env.only(["serial", "weft", "tbb"])
    assert env.run("--kernels", "fib,nqueens", "--workers", "1,2", "--runs", "3",
                   "--policies", "default,ws") == 0
    calls = [c.split(" ")[0] for c in env.calls()]
    # first the probe that asks weft for its default policy's name
    expected = ["weft/fib/1"]
    for k in ["fib", "nqueens"]:
        for w in [1, 2]:
            for _ in range(3):
                # the serial elision always runs with --workers 1, in every group
                expected += [f"serial/{k}/1", f"weft/{k}/{w}", f"weft:ws/{k}/{w}",
                             f"tbb/{k}/{w}"]
    # then the steal-cost group is absent: stress is not among the kernels
    assert calls == expected
    seqs = [r["seq"] for r in env.results()["runs"]]
    assert seqs == sorted(seqs) and len(seqs) == len(expected) - 1


def test_reps_blocks_alternate_between_configurations(env):
    # 6 runs in blocks of 3: one process per configuration and block, A A A B B B A A A B B B
    # in the log (one line per timed run), 6 records per configuration with their place
    env.configure({"times": {"serial/fib/1": [0.5, 0.1, 0.3, 0.2, 0.4, 0.6],
                             "weft/fib/1": [0.2, 0.2, 0.2, 0.8, 0.8, 0.8]}})
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib", "--workers", "1", "--runs", "6", "--reps", "3") == 0
    calls = [c.split(" ")[0] for c in env.calls()][1:]  # after the default-policy probe
    assert calls == ["serial/fib/1"] * 3 + ["weft/fib/1"] * 3 + ["serial/fib/1"] * 3 + \
        ["weft/fib/1"] * 3
    runs = [r for r in env.results()["runs"] if r["label"] == "serial"]
    assert [(r["run"], r["rep"]) for r in runs] == [(0, 0), (1, 1), (2, 2), (3, 0), (4, 1),
                                                    (5, 2)]
    assert all("--reps 3" in r["command"] for r in runs)
    # each run's wall time is its share of its process's
    assert runs[0]["wall_s"] == pytest.approx(runs[0]["process_wall_s"] / 3, abs=1e-5)
    assert env.median("fib", 1, "serial")["median_s"] == pytest.approx(0.35)
    assert env.median("fib", 1, "weft:default")["median_s"] == pytest.approx(0.5)
    assert env.median("fib", 1, "serial")["n_ok"] == 6
    assert "12 timed runs in 4 processes" in env.report()


def test_reps_that_do_not_divide_the_runs(env):
    env.only(["serial"])
    assert env.run("--kernels", "fib", "--workers", "1", "--runs", "5", "--reps", "3") == 0
    cmds = [r["command"] for r in env.results()["runs"]]
    assert len(cmds) == 5 and "--reps 3" in cmds[0] and "--reps 2" in cmds[3]
    # --reps 1 (and a block of one) passes no --reps: the binary's one-line protocol
    assert env.run("--kernels", "fib", "--workers", "1", "--runs", "2", "--reps", "1") == 0
    assert all("--reps" not in r["command"] for r in env.results()["runs"])


def test_a_process_short_of_its_reps_fails(env, capsys):
    env.configure({"short_reps": [["weft", "fib"]]})
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib", "--workers", "1", "--runs", "3", "--reps", "3") == 1
    w = env.median("fib", 1, "weft:default")
    assert w["status"] == "FAILED" and "printed 2 JSON lines for --reps 3" in w["reason"]
    assert env.median("fib", 1, "serial")["status"] == "ok"


def test_refuses_fewer_than_five_runs_outside_test_mode(env):
    with pytest.raises(SystemExit) as e:
        env.run("--runs", "3", mode="quick")
    assert e.value.code == 2
    with pytest.raises(SystemExit):
        env.run("--runs", "4", mode="full")
    assert not env.calls()


def test_default_policy_not_run_twice(env):
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib", "--workers", "1", "--policies",
                   "default,lazy-bf,ws") == 0
    labels = [c["label"] for c in env.results()["configs"] if not c["missing"]]
    assert labels == ["serial", "weft:default", "weft:ws"]
    assert len([r for r in env.results()["runs"] if r["system"] == "weft"]) == 2
    assert env.results()["meta"]["default_policy"] == "lazy-bf"


# --- missing columns -----------------------------------------------------------------------

def test_missing_binary_is_a_missing_column(env):
    env.only(["serial", "weft", "tbb"])
    rc = env.run("--kernels", "fib", "--workers", "1,2")
    assert rc == 0
    m = env.median("fib", 1, "rayon")
    assert m["status"] == "missing" and "weft-bench-rayon not found" in m["reason"]
    rep = env.report()
    assert "**rayon** (all kernels): binary weft-bench-rayon not found" in rep
    assert "| missing |" in rep
    assert env.results()["meta"]["missing_binaries"]["chili"]


def test_unimplemented_policy_is_a_missing_column(env):
    # the binary lists adf (an older list, say) but refuses to run it: a missing column
    env.configure({"unimplemented_policies": ["adf"],
                   "policy_list": ["ws", "lazy-bf", "adf"]})
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib,nqueens", "--workers", "1,2", "--runs", "2",
                   "--policies", "default,adf") == 0
    for k in ["fib", "nqueens"]:
        for w in [1, 2]:
            m = env.median(k, w, "weft:adf")
            assert m["status"] == "missing"
            assert "not implemented" in m["reason"]
    # asked once per kernel, then skipped for its other runs and worker counts
    adf_runs = [r for r in env.results()["runs"] if r["label"] == "weft:adf"]
    assert len(adf_runs) == 2
    assert "**weft:adf** fib: fake_bench: policy 'adf' is not implemented yet" in env.report()


def test_a_listed_kernel_refused_is_a_failure(env):
    # exit 2 on a kernel the binary lists, without a policy or variant that it may lack, is a
    # broken setup (say a bad WEFT_* value): FAILED and a non-zero exit, not a missing column
    env.configure({"missing_kernels": {"weft": ["fib", "nqueens"]}})
    env.only(["serial", "weft", "tbb"])
    assert env.run("--kernels", "fib,nqueens", "--workers", "1", "--steal-cost", "none") == 1
    for k in ["fib", "nqueens"]:
        m = env.median(k, 1, "weft:default")
        assert m["status"] == "FAILED" and "although `--kernel list` names" in m["reason"]
    rep = env.report()
    assert "## FAILURES" in rep and "every configuration ran" not in rep


def test_kernel_missing_in_one_system(env):
    env.configure({"kernels": ["fib", "nqueens", "stress"],
                   "kernels_of": {"serial": ["fib", "nqueens", "quickhull"],
                                  "tbb": ["fib", "stress"]}})
    env.only(["serial", "weft", "tbb"])
    fake_bench.install(env.bins, ["rayon"])
    # rayon's --kernel list lacks quickhull: skipped without running it
    cfg = json.loads(env.cfg_path.read_text())
    assert env.run("--kernels", "fib,nqueens,quickhull", "--workers", "1",
                   "--steal-cost", "none") == 0
    assert env.median("nqueens", 1, "tbb")["status"] == "missing"
    assert env.median("fib", 1, "tbb")["status"] == "ok"
    q = env.median("quickhull", 1, "rayon")
    assert q["status"] == "missing" and "--kernel list" in q["reason"]
    assert not [c for c in env.calls() if "quickhull" in c and not c.startswith("serial")]
    assert cfg["kernels"] == ["fib", "nqueens", "stress"]


def test_no_binary_at_all(env, capsys):
    # nothing can run: exit 4 and nothing written — an all-missing report replaced the previous
    # run's (docs/results by default) before stop 43
    env.only([])
    env.out.mkdir(parents=True, exist_ok=True)
    (env.out / "latest.md").write_text("the previous report\n")
    assert env.run("--kernels", "fib", "--workers", "1") == 4
    assert "no benchmark binary found" in capsys.readouterr().err
    assert (env.out / "latest.md").read_text() == "the previous report\n"
    assert not (env.out / "results.json").exists()
    # a dry run too: its plan comes from what the binaries offer, and it printed "0 runs,
    # estimated 0:00" with exit 0 before stop 47
    assert env.run("--kernels", "fib", "--dry-run") == 4
    assert "no benchmark binary found: nothing planned" in capsys.readouterr().err


# --- failures are loud ---------------------------------------------------------------------

def test_wrong_checksum_fails_loudly(env, capsys):
    env.configure({"wrong": [["tbb", "fib"]]})
    env.only(["serial", "weft", "tbb"])
    rc = env.run("--kernels", "fib,nqueens", "--workers", "1,2", "--runs", "2")
    assert rc == 1
    err = capsys.readouterr().err
    assert "WRONG CHECKSUM" in err and "tbb fib" in err
    m = env.median("fib", 1, "tbb")
    assert m["status"] == "WRONG" and m["median_s"] is None
    # the other columns are still measured and the report is still written
    assert env.median("nqueens", 1, "tbb")["status"] == "ok"
    rep = env.report()
    assert "## FAILURES" in rep and "**WRONG** tbb fib P=1 (2 of 2 runs)" in rep
    assert "| fib |" in rep and "**WRONG**" in rep
    rows = list(csv.DictReader((env.out / "results.csv").open()))
    assert any(r["label"] == "tbb" and r["kernel"] == "fib" and r["status"] == "WRONG"
               for r in rows)


def test_checksum_unlike_serial_is_wrong(env):
    env.configure({"bad_checksum": [["chili", "fib"]]})
    env.only(["serial", "weft", "chili"])
    assert env.run("--kernels", "fib", "--workers", "1") == 1
    m = env.median("fib", 1, "chili")
    assert m["status"] == "WRONG" and "differs from the serial binary" in m["reason"]


def test_crash_is_a_failure(env):
    env.configure({"crash": [["weft", "fib"]]})
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib", "--workers", "1") == 1
    m = env.median("fib", 1, "weft:default")
    assert m["status"] == "FAILED" and "exit code 1" in m["reason"]


def test_timeout_is_reported_not_fatal(env):
    env.configure({"times": {"tbb/fib/1": [5.0]}, "sleep": 1.0})
    env.only(["serial", "tbb"])
    assert env.run("--kernels", "fib", "--workers", "1,2", "--timeout", "1") == 0
    m = env.median("fib", 1, "tbb")
    assert m["status"] == "timeout" and "timed out after 1 s" in m["reason"]
    # not retried at the next worker count
    assert len([r for r in env.results()["runs"] if r["label"] == "tbb"]) == 1
    assert "timeout" in env.report()


# --- figures -------------------------------------------------------------------------------

def test_per_task_overhead_and_granularity(env):
    # serial 0.1 s, weft 0.15 s at P=1; fake stats: tasks = base * 1e8 = 1e6 (base 0.01),
    # steals at P=2 = 80
    env.configure({"times": {"serial/fib/1": [0.1], "weft/fib/1": [0.15],
                             "weft/fib/2": [0.06]}})
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib", "--workers", "1,2") == 0
    rep = env.report()
    # (0.15 - 0.1) / 1e6 s = 50 ns per task
    assert "| fib | 1,000,000 | 50.00 |" in rep
    # G_T = 0.1 s / 1e6 = 100 ns; G_L(2) = 0.1 s / 80 = 1250 µs
    assert "| fib | 100 ms | 1,000,000 | 100 | 80 | 1.25e+03 |" in rep
    assert env.median("fib", 2, "weft:default")["speedup"] == pytest.approx(0.1 / 0.06)


def test_slower_than_peer_sentence(env):
    env.configure({"times": {"serial/fib/1": [0.1], "weft/fib/1": [0.2],
                             "tbb/fib/1": [0.1], "serial/nqueens/1": [0.1],
                             "weft/nqueens/1": [0.1], "tbb/nqueens/1": [0.3]}})
    env.only(["serial", "weft", "tbb"])
    assert env.run("--kernels", "fib,nqueens", "--workers", "1") == 0
    rep = env.report()
    sec = rep.split("## weft default policy vs each peer")[1].split("\n## ")[0]
    assert "weft:default is policy **lazy-bf**" in sec
    assert "- **fib**: at 1 worker weft (lazy-bf, 200 ms) is slower than tbb (100 ms; " \
           "weft takes 2.00× as long)." in sec
    assert "**nqueens**" not in sec
    assert "| fib | **0.50** |" in sec and "| nqueens | 3.00 |" in sec


def test_steal_cost(env):
    env.configure({"steal_cost_ns": {"weft": 2000, "tbb": 7000}})
    env.only(["serial", "weft", "tbb"])
    assert env.run("--kernels", "stress", "--workers", "1", "--runs", "3",
                   "--steal-cost", "40000:100") == 0
    calls = env.calls()
    sc = [c for c in calls if c.endswith("steal-cost:40000:100")]
    assert [c.split(" ")[0] for c in sc] == ["weft/stress/2", "tbb/stress/2"] * 3
    w = env.median("stress", 2, "weft:default", "steal-cost:40000:100")
    t = env.median("stress", 2, "tbb", "steal-cost:40000:100")
    assert w["steal_cost_ns"] == pytest.approx(2000, rel=1e-6)
    assert t["steal_cost_ns"] == pytest.approx(7000, rel=1e-6)
    assert w["steals_per_tree"] == pytest.approx(1.0)
    rep = env.report()
    assert "| weft:default | 2 | 2,000 | 60,000 | 1.00 |" in rep
    assert "| tbb | 2 | 7,000 |" in rep


def test_steal_cost_variant_rejected_is_missing(env):
    env.configure({"no_variant": ["tbb"]})
    env.only(["serial", "weft", "tbb"])
    assert env.run("--kernels", "stress", "--workers", "1") == 0
    m = env.median("stress", 2, "tbb", "steal-cost:1000:20")
    assert m["status"] == "missing" and "has no variant" in m["reason"]


def test_report_has_every_section(env):
    env.only(fake_bench.SYSTEMS)
    assert env.run("--kernels", "fib,stress", "--workers", "1,2", "--policies",
                   "default,heartbeat") == 0
    rep = env.report()
    for heading in ["# weft benchmark results (test mode)", "## Single-worker overhead T1/Ts",
                    "## Speedup over Ts", "### 2 workers", "## Median times",
                    "## Per-task overhead", "## Load balancing (weft counters, WOOL §II)",
                    "### weft:default (lazy-bf)", "### weft:heartbeat",
                    "## weft default policy vs each peer", "## Steal cost (WOOL Table III)",
                    "## Over the time cap",
                    "## Plots", "## Missing columns", "## Data"]:
        assert heading in rep, heading
    assert "- Command: `python3 " in rep and "--kernels fib,stress" in rep
    assert "nproc = " in rep and "- Machine: " in rep and "- Date: " in rep
    assert "**N_T (tasks) = `joins + loop_iterations`**" in rep
    assert "G_T = Ts / N_T" in rep and "G_L(P) = Ts / N_M" in rep
    assert "default policy (what `weft-bench-weft` runs without `--policy`) is **lazy-bf**" \
        in rep
    meta = env.results()["meta"]
    assert meta["machine"]["nproc"] >= 1 and meta["machine"]["cpu_model"]
    assert meta["elapsed_s"] >= 0 and meta["estimated_s"] > 0
    if HAVE_MPL:
        for f in ["speedup.png", "overhead.png", "steal_cost.png"]:
            assert (env.out / f).stat().st_size > 1000
            assert f"]({f})" in rep
    else:
        assert "matplotlib is not installed" in rep


def test_progress_line_and_estimate(env, capsys):
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib", "--workers", "1,2", "--runs", "2") == 0
    err = capsys.readouterr().err
    assert "runs, estimated" in err
    assert "elapsed" in err and "left ~" in err and "/8 " in err


def test_dry_run_runs_nothing(env, capsys):
    assert env.run("--kernels", "fib", "--dry-run") == 0
    # no benchmark run: only the probe asking weft for its default policy's name
    assert env.calls() == ["weft/fib/1 -"]
    assert not (env.out / "results.json").exists()
    assert "estimated" in capsys.readouterr().err


def test_quick_defaults(env):
    a = cli.parse_args(["--mode", "quick"])
    assert (a.runs, a.reps, a.blocks) == (6, 3, [3, 3])
    assert a.kernels is None  # every kernel the binaries list
    assert a.policies_requested == ["default", "lazy-bf", "heartbeat"]
    assert not a.policies_explicit
    assert a.steal == (30000, 2000)
    assert (a.cap.factor, a.cap.seconds, a.timeout) == (10.0, 10.0, 60)
    a = cli.parse_args(["--mode", "full"])
    assert a.policies_requested == ["all"] and (a.runs, a.reps) == (6, 3)
    assert (a.cap.factor, a.cap.seconds) == (10.0, 300.0)
    a = cli.parse_args(["--mode", "test", "--kernels", "fib"])
    assert a.steal is None and (a.runs, a.reps) == (1, 1) and not a.cap.enabled
    with pytest.raises(SystemExit):
        cli.parse_args(["--systems", "cilk"])
    with pytest.raises(SystemExit):
        cli.parse_args(["--policies", ","])


def test_weft_env_is_scrubbed(env, monkeypatch):
    monkeypatch.setenv("WEFT_POLICY", "ws")
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib", "--workers", "1") == 0
    # the fake, like the real binary, would take its default policy from WEFT_POLICY
    assert env.results()["meta"]["default_policy"] == "lazy-bf"
    assert "WEFT_POLICY" not in child_env()


def prior_runs(walls):
    """A previous results.json's runs: walls maps (label, workers) to wall seconds."""
    return [{"kernel": "fib", "variant": "", "label": lab, "workers": w, "status": "ok",
             "wall_s": t} for (lab, w), t in walls.items()]


def test_quick_mode_keeps_to_its_budget(env, capsys):
    # a previous quick run says every fib run takes 10 s: 2 workers x 5 runs x 8 columns
    # are 800 s, past 80 % of 600 s, so the extra weft policy goes (and the estimate still
    # warns)
    env.out.mkdir()
    labels = ["serial", "weft:default", "weft:heartbeat", "tbb", "omp-gcc", "omp-clang",
              "rayon", "chili"]
    (env.out / "results.json").write_text(json.dumps(
        {"meta": {"mode": "quick"},
         "runs": prior_runs({(lab, w): 10.0 for lab in labels for w in (1, 2)})}))
    one = ("--runs", "5", "--reps", "1")  # one timed run per process: 10 s a process
    assert env.run("--kernels", "fib", "--dry-run", "--workers", "1,2", *one,
                   mode="quick") == 0
    err = capsys.readouterr().err
    assert "weft:heartbeat was left out to keep quick mode within 10:00" in err
    assert "from the previous run's timings" in err
    assert "exceeds the 10:00 budget" in err
    assert "estimated 11:40" in err  # 70 runs x 10 s
    # with --policies given nothing is dropped
    assert env.run("--kernels", "fib", "--dry-run", "--workers", "1,2", "--policies",
                   "default,heartbeat", *one, mode="quick") == 0
    assert "left out" not in capsys.readouterr().err


def test_estimate_counts_a_hopeless_configuration_once_at_its_cap(env, capsys):
    # serial 1 s a run; tbb 50 s: over the quick cap of min(10 s, 10 x 1 s), so it costs one
    # capped run (10 s) per worker count instead of 5 x 50 s
    env.out.mkdir()
    walls = {("serial", w): 1.0 for w in (1, 2)}
    walls.update({("tbb", w): 50.0 for w in (1, 2)})
    (env.out / "results.json").write_text(json.dumps(
        {"meta": {"mode": "quick"}, "runs": prior_runs(walls)}))
    env.only(["serial", "tbb"])
    assert env.run("--kernels", "fib", "--dry-run", "--workers", "1,2", "--runs", "5",
                   "--reps", "1", mode="quick") == 0
    err = capsys.readouterr().err
    assert "12 runs, estimated 0:30" in err  # 2 x (5 x 1 s + 10 s)
    # three runs a process: serial 3 s a process, tbb 150 s, over its cap of 3 x 10 s: still
    # one capped process per worker count
    assert env.run("--kernels", "fib", "--dry-run", "--workers", "1,2", "--runs", "6",
                   "--reps", "3", mode="quick") == 0
    assert "14 runs, estimated 1:12" in capsys.readouterr().err  # 2 x (6 x 1 s + 30 s)


def test_estimate_takes_ratios_from_another_mode(env, capsys):
    # a quick run says tbb takes 3x the serial binary; at full size the serial run of mm is
    # the built-in guess g, so 6 serial and 6 tbb runs are estimated at 6 g + 18 g
    from weftbench.estimate import SERIAL_GUESS_S
    from weftbench.fmt import fmt_dur
    env.out.mkdir()
    walls = {("serial", 1): 0.1, ("tbb", 1): 0.3}
    runs = [dict(r, kernel="mm") for r in prior_runs(walls)]
    (env.out / "results.json").write_text(json.dumps({"meta": {"mode": "quick"},
                                                      "runs": runs}))
    env.only(["serial", "tbb"])
    assert env.run("--kernels", "mm", "--dry-run", "--workers", "1", mode="full") == 0
    err = capsys.readouterr().err
    g = SERIAL_GUESS_S["full"]["mm"]
    assert f"12 runs, estimated {fmt_dur(24 * g)} (from built-in guesses and the ratios of " \
           "the previous quick run)" in err


def test_every_runtime_setting_is_scrubbed(env, monkeypatch):
    for k, v in [("WEFT_WORK_SPAN", "ns"), ("WEFT_HEARTBEAT_DELIVERY", "bogus"),
                 ("OMP_THREAD_LIMIT", "1"), ("KMP_BLOCKTIME", "0"), ("GOMP_SPINCOUNT", "1"),
                 ("RAYON_NUM_THREADS", "1"), ("TBB_MALLOC_USE_HUGE_PAGES", "1")]:
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("PATH_LIKE_WEFT_", "kept")
    ce = child_env()
    assert not [k for k in ce if k.startswith(("WEFT_", "OMP_", "GOMP_", "KMP_", "RAYON_", "TBB_"))]
    assert ce["PATH_LIKE_WEFT_"] == "kept"
    env.only(["serial", "weft"])
    assert env.run("--kernels", "fib", "--workers", "1") == 0
    assert "removed in this run: GOMP_SPINCOUNT, KMP_BLOCKTIME, OMP_THREAD_LIMIT" in env.report()


@pytest.mark.parametrize("bad", [["--timeout", "inf"], ["--timeout", "nan"],
                                 ["--cap-factor", "nan"], ["--cap-factor", "inf"],
                                 ["--workers", "1,,2"], ["--workers", "2,"],
                                 ["--steal-cost-workers", ",2"]])
def test_bad_numbers_are_refused_up_front(env, bad, capsys):
    with pytest.raises(SystemExit) as e:
        env.run("--kernels", "fib", *bad)
    assert e.value.code == 2
    assert bad[0] in capsys.readouterr().err
    assert not env.calls()


@pytest.mark.parametrize("kind", ["file", "unwritable"])
def test_unusable_out_fails_before_any_run(env, tmp_path, kind, capsys):
    import os
    if kind == "file":
        out = tmp_path / "a-file"
        out.write_text("x")
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes anywhere")
        out = tmp_path / "ro"
        out.mkdir()
        out.chmod(0o500)
    env.only(["serial", "weft"])
    args = ["--mode", "test", "--bin-dir", str(env.bins), "--out", str(out), "--kernels", "fib"]
    assert cli.main(args) == 2
    assert "not a writable folder" in capsys.readouterr().err
    assert not [c for c in env.calls() if "--size" in c]


def test_fmt_time_rounds_before_choosing_the_unit():
    from weftbench.fmt import fmt_time
    assert fmt_time(0.9996) == "1 s"
    assert fmt_time(0.0009996) == "1 ms"
    assert fmt_time(0.01234) == "12.3 ms" and fmt_time(2e-6) == "2 µs"


def test_empty_systems_and_zero_runs_are_refused(env, capsys):
    # "--systems ," selected no column at all: the run would overwrite --out with an empty
    # report (exit 4) instead of saying what was wrong, as --kernels , and --policies , do
    for text in (",", ""):
        with pytest.raises(SystemExit) as e:
            env.run("--kernels", "fib", "--systems", text)
        assert e.value.code == 2
        assert "--systems is empty" in capsys.readouterr().err
    # --runs 0 in test mode: not "test mode needs at least 1 runs ... use --mode test"
    with pytest.raises(SystemExit) as e:
        env.run("--kernels", "fib", "--runs", "0")
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--runs must be at least 1 (got 0)" in err and "use --mode test" not in err
    assert not env.calls() and not env.out.exists()


def previous_outputs(env):
    """--out holding a previous run's three files; returns their texts."""
    assert env.run("--kernels", "fib", "--workers", "1", "--no-plots") == 0
    return {f: (env.out / f).read_text() for f in ("results.json", "results.csv", "latest.md")}


def test_interrupted_before_any_run_keeps_the_previous_outputs(env, monkeypatch, capsys):
    env.only(["serial", "weft"])
    before = previous_outputs(env)

    def interrupt(self):
        raise KeyboardInterrupt
    monkeypatch.setattr(run_mod.Runner, "execute", interrupt)
    assert env.run("--kernels", "nqueens", "--workers", "1", "--no-plots") == 130
    assert "nothing written" in capsys.readouterr().err
    assert {f: (env.out / f).read_text() for f in before} == before


def test_interrupted_after_some_runs_writes_them(env, monkeypatch):
    env.only(["serial", "weft"])
    real = run_mod.Runner.run_block

    def block_then_interrupt(self, cfg, g, first, reps):
        if self.runs:  # the first process finished, Ctrl-C during the second
            raise KeyboardInterrupt
        return real(self, cfg, g, first, reps)
    monkeypatch.setattr(run_mod.Runner, "run_block", block_then_interrupt)
    assert env.run("--kernels", "fib", "--workers", "1", "--no-plots") == 130
    assert env.results()["meta"]["interrupted"] and len(env.results()["runs"]) == 1
    assert "**Interrupted**" in env.report()


def test_a_second_interrupt_while_writing_leaves_no_mix_of_two_runs(env, monkeypatch):
    # the plots take seconds: a second Ctrl-C there (or a failure) used to leave this run's
    # results.json and results.csv beside the previous run's latest.md
    env.only(["serial", "weft"])
    before = previous_outputs(env)

    def interrupt(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli.plots, "draw_plots", interrupt)
    with pytest.raises(KeyboardInterrupt):
        env.run("--kernels", "nqueens", "--workers", "1")
    assert {f: (env.out / f).read_text() for f in before} == before
    # a report that fails to render: the same
    monkeypatch.setattr(cli.report, "report", interrupt)
    with pytest.raises(KeyboardInterrupt):
        env.run("--kernels", "nqueens", "--workers", "1", "--no-plots")
    assert {f: (env.out / f).read_text() for f in before} == before
    assert sorted(p.name for p in env.out.iterdir()) == sorted(before)  # no .tmp left


def test_bin_must_name_an_executable_once(env, capsys):
    # a typo in --bin made the column "missing" in a report of everything else, exit 0
    with pytest.raises(SystemExit) as e:
        env.run("--kernels", "fib", "--bin", f"weft={env.bins / 'weft-bench-wetf'}")
    assert e.value.code == 2
    assert "weft-bench-wetf: no executable file there" in capsys.readouterr().err
    weft = env.bins / "weft-bench-weft"
    with pytest.raises(SystemExit) as e:
        env.run("--kernels", "fib", "--bin", f"weft={weft}", "--bin", f"weft={weft}")
    assert e.value.code == 2 and "system 'weft' given twice" in capsys.readouterr().err
    assert not env.calls()
    assert env.run("--kernels", "fib", "--workers", "1", "--bin", f"weft={weft}") == 0


def test_binary_folders_given_must_exist(env, capsys):
    # --bin-dir or --build-dir with a typo made every column of it "missing": with --bin-dir, a
    # report of nothing over --out (exit 4)
    for flag in ("--bin-dir", "--build-dir", "--clang-build-dir", "--rust-dir"):
        with pytest.raises(SystemExit) as e:
            cli.main(["--mode", "test", "--kernels", "fib", "--out", str(env.out), flag,
                      str(env.tmp / "no-such-folder")])
        assert e.value.code == 2
        assert f"{flag} {env.tmp / 'no-such-folder'}: no such folder" in capsys.readouterr().err
    assert not env.calls() and not env.out.exists()
