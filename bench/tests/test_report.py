"""Each report section on synthetic records (no binary, no process): the numbers in the
tables are the ones the formulas give for the records put in."""
from pathlib import Path

import pytest

from weftbench import analyse, cli, plan as planning, report
from weftbench import records as R
from weftbench.machine import machine_info

SERIAL_S = {"fib": 0.1, "stress": 0.2}


def record(seq, kernel, workers, cfg, time_s, status=R.OK, **kw):
    rec = R.RunRecord(seq=seq, kernel=kernel, variant=kw.pop("variant", ""), workers=workers,
                      system=cfg.system, policy=cfg.weft_policy, label=cfg.label, run=0,
                      status=status, rc=0, wall_s=time_s, reason=kw.pop("reason", ""),
                      command=f"weft-bench-{cfg.system} --kernel {kernel}")
    rec.time_s, rec.checksum, rec.ok = time_s, kw.pop("checksum", "42"), True
    for k, v in kw.items():
        setattr(rec, k, v)
    return rec


def synthetic_runs(pl):
    """serial Ts; weft 1.5 Ts at P=1 and Ts/1.6 at P=2, 1e6 tasks, 80 steals at P=2;
    tbb 2 Ts at P=1 but faster than weft at P=2 on fib; tbb over cap on stress at P=2."""
    runs = []
    for g in pl.groups:
        ts = SERIAL_S.get(g.kernel)
        for c in g.configs:
            seq = len(runs) + 1
            if g.variant:
                runs.append(record(seq, g.kernel, g.workers, c, 0.07, variant=g.variant,
                                   leaf_time_s=0.05, reps=10,
                                   stats={"steals": 10} if c.system == "weft" else None))
            elif c.system == "serial":
                runs.append(record(seq, g.kernel, g.workers, c, ts))
            elif c.system == "weft":
                t = ts * 1.5 if g.workers == 1 else ts / 1.6
                stats = {"joins": 600000, "loop_iterations": 400000,
                         "steals": 0 if g.workers == 1 else 80, "promotions": 7}
                runs.append(record(seq, g.kernel, g.workers, c, t, stats=stats,
                                   reported_policy="lazy-bf"))
            elif g.kernel == "stress" and g.workers == 2:
                runs.append(record(seq, g.kernel, g.workers, c, None, status=R.OVER_CAP,
                                   cap_s=2.0, reason="over the time cap of 2 s"))
            else:
                t = ts * 2 if g.workers == 1 else ts / 2
                runs.append(record(seq, g.kernel, g.workers, c, t))
    return runs


@pytest.fixture
def ctx(tmp_path):
    opts = cli.parse_args(["--mode", "test", "--workers", "1,2", "--out", str(tmp_path),
                           "--systems", "serial,weft,tbb", "--kernels", "fib,stress"])
    inv = planning.Inventory()
    for s in ("serial", "weft", "tbb"):
        inv.binaries[s] = Path(f"/x/weft-bench-{s}")
    inv.missing_bin["chili"] = "binary weft-bench-chili not found"
    pl = planning.build_plan(opts, inv, policies=["default"])
    runs = synthetic_runs(pl)
    cells, idx = analyse.analyse(runs, pl, inv)
    meta = {"command": "python3 bench/run.py --mode test", "date": "D", "finished": "F",
            "machine": machine_info(), "elapsed_s": 61, "estimated_s": 59, "runs_done":
            len(runs), "default_policy": "lazy-bf"}
    return report.ReportContext(opts, pl, inv, meta, cells, idx, runs, [], "no plots here")


def text(lines):
    return "\n".join(lines)


def test_header(ctx):
    t = text(report.header(ctx))
    assert t.startswith("# weft benchmark results (test mode)\n")
    assert "- Wall time of this run: 1:01 (estimated beforehand: 0:59)" in t
    assert "is **lazy-bf**; its column is `weft:default`" in t
    assert "- Time cap of a non-serial run: no time cap; every process: --timeout 60 s." in t


def test_failures_only_when_there_are_some(ctx):
    assert report.failures(ctx) == []
    ctx.runs[1].status, ctx.runs[1].reason = R.WRONG, "checksum 1 differs"
    t = text(report.failures(ctx))
    assert "**1 run(s) were WRONG or FAILED" in t
    assert "- **WRONG** weft:default fib P=1 (1 of 1 runs): checksum 1 differs" in t


def test_single_worker_overhead(ctx):
    assert "| fib | 100 ms | 1.50 | 2.00 |" in text(report.single_worker_overhead(ctx))
    ctx.opts.workers = [2]
    assert "Not measured" in text(report.single_worker_overhead(ctx))


def test_speedups(ctx):
    t = text(report.speedups(ctx))
    assert "### 2 workers" in t and "| fib | 1.60 | 2.00 |" in t
    assert "| stress | 1.60 | over cap |" in t


def test_median_times(ctx):
    t = text(report.median_times(ctx))
    assert "| kernel | serial | weft:default | tbb |" in t
    assert "| fib | 100 ms | 150 ms | 200 ms |" in t


def test_per_task_overhead(ctx):
    # (150 ms - 100 ms) / 1e6 tasks = 50 ns; tbb (200 - 100) ms / 1e6 = 100 ns
    assert "| fib | 1,000,000 | 50.00 | 100.00 |" in text(report.per_task_overhead(ctx))


def test_load_balancing(ctx):
    t = text(report.load_balancing(ctx))
    assert "### weft:default (lazy-bf)" in t
    # G_T = 100 ms / 1e6 = 100 ns; G_L(2) = 100 ms / 80 steals = 1.25e3 µs
    assert "| fib | 100 ms | 1,000,000 | 100 | 80 | 1.25e+03 | 7 |" in t


def test_default_vs_peers(ctx):
    t = text(report.default_vs_peers(ctx))
    assert "| kernel | tbb P=1 | tbb P=2 |" in t
    # P=1: 200/150; P=2: 50/62.5 (tbb faster: bold)
    assert "| fib | 1.33 | **0.80** |" in t
    assert "- **fib**: at 2 workers weft (lazy-bf, 62.5 ms) is slower than tbb (50 ms; " \
           "weft takes 1.25× as long)." in t
    assert "| stress | 1.33 | over cap |" in t


def set_cell(ctx, kernel, workers, label, status=R.OK, median_s=None):
    m = ctx.idx[(kernel, "", workers, label)]
    m.status, m.median_s = status, median_s


def test_default_vs_peers_claims_only_with_every_ratio(ctx):
    set_cell(ctx, "fib", 2, "tbb", median_s=0.1)
    set_cell(ctx, "stress", 2, "tbb", median_s=0.2)
    t = text(report.default_vs_peers(ctx))
    assert "is at least as fast as every peer measured" in t
    set_cell(ctx, "stress", 2, "tbb", R.OVER_CAP)  # the peer over its cap: no claim
    t = text(report.default_vs_peers(ctx))
    assert "| stress | 1.33 | over cap |" in t
    assert "at least as fast" not in t and "1 cell could not be compared" in t


def test_default_vs_peers_labels_weft_status(ctx):
    set_cell(ctx, "fib", 2, "tbb", median_s=0.1)
    set_cell(ctx, "stress", 2, "tbb", median_s=0.2)
    set_cell(ctx, "stress", 2, "weft:default", R.OVER_CAP)
    set_cell(ctx, "fib", 1, "weft:default", R.FAILED)
    t = text(report.default_vs_peers(ctx))
    # weft's status, labelled as weft's, in the peer's column; the peer counts as faster
    assert "| stress | 1.33 | weft over cap |" in t
    assert "| fib | weft **FAILED** | 1.60 |" in t
    assert "at 2 workers weft (lazy-bf) has no time (over cap) while tbb takes 200 ms" in t
    assert "at least as fast" not in t and "2 cells could not be compared" in t


def test_default_vs_peers_without_weft(ctx):
    for k in list(ctx.idx):
        if k[3] == "weft:default":
            del ctx.idx[k]
    t = text(report.default_vs_peers(ctx))
    assert "at least as fast" not in t and "no weft run" in t
    ctx.plan.configs = [c for c in ctx.plan.configs if c.system != "weft"]
    t = text(report.default_vs_peers(ctx))
    assert "weft:default was not run" in t and "at least as fast" not in t


def test_failures_count_runs_not_processes(ctx):
    # one record per failed process of 3 runs: 2 processes are 6 runs
    for r in ctx.runs[1:3]:
        r.status, r.reason, r.runs_covered = R.FAILED, "exit code -11", 3
        r.kernel, r.workers, r.label = "fib", 1, "tbb"
    ctx.opts.runs = 6
    t = text(report.failures(ctx))
    assert "**6 run(s) were WRONG or FAILED" in t and "(6 of 6 runs)" in t


def test_a_timeout_makes_the_cell_a_timeout(ctx):
    runs = [r for r in ctx.runs if r.label == "tbb" and r.kernel == "fib" and r.workers == 1]
    late = R.RunRecord(**{**runs[0].__dict__, "seq": 999, "status": R.TIMEOUT,
                          "reason": "timed out after 2 s"})
    cells, idx = analyse.analyse(ctx.runs + [late], ctx.plan, ctx.inv)
    m = idx[("fib", "", 1, "tbb")]
    assert m.status == R.TIMEOUT and m.median_s is None and m.n_runs == 2
    ctx.cells, ctx.idx = cells, idx
    t = text(report.missing_columns(ctx))
    assert "timeout: timed out after 2 s" in t and "every configuration ran" not in t


def test_steal_cost(ctx):
    t = text(report.steal_cost(ctx))
    # (70 ms - 50 ms) / 10 trees = 2 ms; the leaf 5 ms
    assert "R = 20 repetitions" in t  # the variant's R, from --steal-cost 1000:20
    assert "| weft:default | 2 | 2,000,000 | 5,000,000 | 1.00 |  |" in t
    ctx.cells[:] = [m for m in ctx.cells if not m.variant]
    assert "Not run" in text(report.steal_cost(ctx))


def test_over_cap(ctx):
    t = text(report.over_cap(ctx))
    assert "No cap in this run: every run went to its end." in t  # test mode has none
    assert "may take" not in t  # it said "A non-serial run may take no time cap."
    ctx.opts.cap = ctx.opts.cap.__class__(factor=20, seconds=10)
    t = text(report.over_cap(ctx))
    assert "| stress | 2 | tbb | 2 s | 200 ms | 0 of 1 |" in t


def test_plots_section(ctx):
    assert "no plots here" in text(report.plots_section(ctx))
    ctx.plots = [("Speedup", "speedup.png")]
    assert "![Speedup](speedup.png)" in text(report.plots_section(ctx))


def test_missing_columns(ctx):
    t = text(report.missing_columns(ctx))
    assert "- **chili** (all kernels): binary weft-bench-chili not found" in t
    assert "tbb" not in t  # over cap is not missing


def test_data_section(ctx):
    assert "Reproduce with `python3 bench/run.py --mode test`." in text(report.data_section(ctx))


def test_no_section_function_is_long():
    import inspect
    for f in report.SECTIONS:
        assert len(inspect.getsource(f).splitlines()) <= 60, f.__name__


def test_steal_cost_note_tells_no_steal_from_a_costly_fork():
    # about T_leaf: the owner ran both leaves; far above it (stop 43's hunt: omp-gcc 396,504 ns
    # against a T_leaf of 1,299 ns was read as "probably no steal"): the fork and join cost more
    assert report.steal_cost_note(2000, 10000) == ""
    assert report.steal_cost_note(None, 10000) == ""
    assert report.steal_cost_note(2000, None) == ""
    assert report.steal_cost_note(10500, 10000) == "≈ T_leaf: probably no steal"
    assert report.steal_cost_note(396504, 1299) == \
        "305 × T_leaf: the fork and join cost more than a leaf"
