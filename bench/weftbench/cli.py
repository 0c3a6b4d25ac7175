"""weft benchmark driver: runs the benchmark binaries side by side and writes the report.

    python3 bench/run.py [--mode test|quick|full] [--kernels a,b|all|nar] [--systems a,b]
                         [--policies default,lazy-bf|all] [--workers 1,2] [--runs 6]
                         [--reps 3]
                         [--build-dir build] [--clang-build-dir build-clang]
                         [--rust-dir bench/rust/target/release] [--bin-dir DIR]
                         [--bin SYSTEM=PATH] [--steal-cost auto|none|L:R]
                         [--timeout S] [--cap-seconds S|none] [--cap-factor F]
                         [--out docs/results] [--dry-run]

Every binary follows the protocol of bench/KERNELS.md (one JSON line per timed run). The kernels
are those the binaries list (`BIN --kernel list`) but the opt-in group `nar` (NAR's space
benchmarks mmtemp, strassen, dtree, fft, meshspmv: `--kernels nar` or `--kernels all,nar`;
bench/tools/nar_memory.py reports their memory), the weft policies those
`weft-bench-weft --policy list` names. For each kernel and worker count the driver forms
the list of configurations (each system; for weft each policy) and runs them round-robin,
A B C A B C ..., until each has `--runs` timed runs, so that ratios are measured side by side
on a shared, noisy machine (SPEC.md section 8). A process times `--reps` runs (`BIN --reps R`)
after one input generation, warm-up and check, so those are paid once per R runs; the
processes alternate (quick: 6 runs as 2 processes of 3, A A A B B B A A A B B B in time). It
reports medians over the timed runs. The serial binary (the baseline Ts) runs in
every group, always with --workers 1. Before starting it prints the number of runs and the
estimated time; while running, a progress line on stderr (runs done/total, elapsed,
estimated time left).

Outcomes of a run:
  ok        exit 0 and a JSON line with "ok": true
  missing   exit 2 (bad arguments: the binary does not know the kernel, the variant or the
            policy, e.g. "not implemented") or no binary at all: the column is reported
            missing with its reason; not an error
  over cap  a non-serial run took longer than its time cap (see cap.py; quick and full
            mode): stopped, reported "over cap" with the cap, skipped for the rest of that
            worker count (tried again at the next); not an error
  timeout   the run took longer than --timeout: reported, the configuration is skipped for
            the rest of that kernel; not an error
  WRONG     exit 3, "ok": false, or a checksum unlike the serial binary's: a loud failure
  FAILED    any other exit code or no JSON line: a loud failure
The driver exits 1 when any run was WRONG or FAILED (after writing everything), 2 on bad
arguments, 4 when not a single run succeeded (with no binary found at all nothing is written:
--out keeps the previous outputs), 130 when interrupted (Ctrl-C: what has run so far is written,
unless nothing has: then --out keeps the previous outputs), else 0.

Outputs in --out: results.json (every run, the medians, the steal costs, the machine),
results.csv (one row per configuration), latest.md (the report) and PNG plots (matplotlib,
imported only for them). The plots are drawn first; the three files are then replaced
together, so that a second Ctrl-C or a failure while writing leaves the previous three, never
a mix of two runs.
"""
from __future__ import annotations

import argparse
import datetime
import math
import os
import shlex
import sys
import time
from pathlib import Path

from . import analyse, output, plan as planning, plots, report
from . import records as R
from .binaries import REPO, SYSTEMS, scrubbed_env
from .cap import CapRule
from .estimate import Estimator, load_prior, trim_to_budget
from .fmt import fmt_dur
from .machine import machine_info, nproc
from .options import KERNEL_GROUPS, MODES, Options, expand_kernels, parse_steal, steal_variant
from .progress import Progress
from .run import Runner


def split_list(text):
    return [x.strip() for x in text.split(",") if x.strip()]


def _parser():
    p = argparse.ArgumentParser(
        prog="bench/run.py", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Report: <out>/latest.md; data: <out>/results.json, <out>/results.csv.")
    p.add_argument("--mode", choices=list(MODES), default="quick",
                   help="input sizes and defaults (default: quick)")
    p.add_argument("--kernels", default=None,
                   help="comma list of kernels, 'all' and groups (default: all, i.e. every "
                        "kernel the binaries list with --kernel list but the opt-in groups; "
                        "groups: " + ", ".join(f"{g} = {','.join(ks)}"
                                               for g, ks in KERNEL_GROUPS.items()) + ")")
    p.add_argument("--systems", default=None,
                   help=f"comma list of {','.join(SYSTEMS)} ('omp' = both omp; default: all)")
    p.add_argument("--policies", default=None,
                   help="weft policies: comma list of 'default' (no --policy) and names, or "
                        "'all' (default plus every policy `weft-bench-weft --policy list` "
                        "names; default: quick: default,lazy-bf,heartbeat, less those "
                        "that would take it past 80%% of its 10-minute budget; full: all; "
                        "test: default)")
    p.add_argument("--workers", default=None, help="comma list (default: 1..nproc)")
    p.add_argument("--runs", type=int, default=None,
                   help="timed runs per configuration, median taken (default: quick and "
                        "full 6, test 1; quick/full refuse fewer than 5)")
    p.add_argument("--reps", type=int, default=None,
                   help="timed runs per process (BIN --reps R): one input generation, "
                        "warm-up and check serve R of the runs; the processes of a group's "
                        "configurations alternate (default: quick and full 3, test 1)")
    p.add_argument("--build-dir", default=None, help="CMake build dir (default: build)")
    p.add_argument("--clang-build-dir", default=None,
                   help="build dir with weft-bench-omp-clang (default: build-clang)")
    p.add_argument("--rust-dir", default=None,
                   help="dir with weft-bench-rayon/-chili (default: bench/rust/target/release)")
    p.add_argument("--bin-dir", default=None,
                   help="look for every weft-bench-<system> in this one directory instead")
    p.add_argument("--bin", action="append", default=[], metavar="SYSTEM=PATH",
                   help="the binary of one system (repeatable)")
    p.add_argument("--steal-cost", default="auto",
                   help="steal-cost microbenchmark: 'auto' (when stress is among the "
                        "kernels, with the mode's L:R), 'none', or L:R")
    p.add_argument("--steal-cost-workers", default="2",
                   help="worker counts of the steal-cost runs (default 2)")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds per process (any system) before it is killed and reported "
                        "as a timeout (default: test 60, quick 60, full 3600)")
    p.add_argument("--cap-seconds", default=None,
                   help="absolute time cap of a non-serial timed run in seconds (a process "
                        "of R runs gets R times it), or 'none' (default: quick 10, full 300, "
                        "test none); a process over its cap is stopped and reported 'over cap'")
    p.add_argument("--cap-factor", type=float, default=None,
                   help="relative time cap: this many times the serial binary's wall time "
                        "of the same kernel (at least 1 s; 0 = none; default: quick and "
                        "full 10, test 0)")
    p.add_argument("--out", default=None, help="output directory (default: docs/results)")
    p.add_argument("--no-plots", action="store_true", help="do not draw the PNG plots")
    p.add_argument("--dry-run", action="store_true",
                   help="print the plan and the estimate, run no benchmark (the binaries are "
                        "still asked for their kernel and policy lists and weft for its "
                        "default policy)")
    return p


def _systems(text, fail):
    if text is None:
        return list(SYSTEMS)
    names = []
    if not split_list(text):  # "" or ",": nothing would run, and the report would be empty
        fail("--systems is empty")
    for s in split_list(text):
        for g in (["omp-gcc", "omp-clang"] if s == "omp" else [s]):
            if g not in SYSTEMS:
                fail(f"--systems: unknown system '{s}' (accepted: {', '.join(SYSTEMS)}, omp)")
            if g not in names:
                names.append(g)
    return [s for s in SYSTEMS if s in names]


def _int_list(text, flag, least, why, fail):
    try:
        parts = [x.strip() for x in text.split(",")]
        if "" in parts:  # "1,,2", "2,": a slip, not a list of two
            raise ValueError(text)
        xs = sorted({int(x) for x in parts})
    except ValueError:
        fail(f"{flag} must be a comma list of integers (got '{text}')")
    if not xs or xs[0] < least:
        fail(f"{flag}: {why}")
    return xs


def _cap(a, mode, fail):
    seconds = mode["cap_seconds"]
    if a.cap_seconds is not None:
        if a.cap_seconds == "none":
            seconds = None
        else:
            try:
                seconds = float(a.cap_seconds)
            except ValueError:
                seconds = -1.0
            if not seconds > 0:
                fail(f"--cap-seconds must be a positive number of seconds or 'none' "
                     f"(got '{a.cap_seconds}')")
    factor = mode["cap_factor"] if a.cap_factor is None else a.cap_factor
    if not math.isfinite(factor) or factor < 0:
        fail(f"--cap-factor must be 0 (no relative cap) or a positive finite number "
             f"(got {factor:g})")
    return CapRule(factor=factor, seconds=seconds, floor_s=mode["cap_floor"])


def _steal(a, mode, kernels, fail):
    if a.steal_cost == "none":
        return None
    if a.steal_cost == "auto":
        return parse_steal(mode["steal"]) if kernels is None or "stress" in kernels or \
            "all" in kernels else None
    steal = parse_steal(a.steal_cost)
    if steal is None:
        fail(f"--steal-cost must be auto, none or L:R with positive integers "
             f"(got '{a.steal_cost}')")
    return steal


def _bins(specs, fail):
    out = {}
    for b in specs:
        if "=" not in b:
            fail(f"--bin needs SYSTEM=PATH (got '{b}')")
        s, path = b.split("=", 1)
        if s not in SYSTEMS:
            fail(f"--bin: unknown system '{s}' (accepted: {', '.join(SYSTEMS)})")
        if s in out:
            fail(f"--bin: system '{s}' given twice")
        # a binary named explicitly must be there: a typo would otherwise only turn the column
        # into "missing" in a report that ran everything else
        if not (Path(path).is_file() and os.access(path, os.X_OK)):
            fail(f"--bin {s}={path}: no executable file there")
        out[s] = Path(path)
    return out


def _dirs(a, fail):
    """The binary folders given on the command line must be folders: a typo (--build-dir biuld)
    would otherwise only turn every column it holds into "missing"."""
    for flag, d in (("--bin-dir", a.bin_dir), ("--build-dir", a.build_dir),
                    ("--clang-build-dir", a.clang_build_dir), ("--rust-dir", a.rust_dir)):
        if d is not None and not Path(d).is_dir():
            fail(f"{flag} {d}: no such folder")


def _kernels(text, fail):
    if text is None or text == "all":
        return None  # resolved from the binaries' --kernel list
    names = split_list(text)
    if not names:
        fail("--kernels is empty")
    return expand_kernels(names)


def parse_args(argv):
    """The command line as Options; exits 2 (argparse) on bad arguments."""
    p = _parser()
    a = p.parse_args(argv)
    mode = MODES[a.mode]
    fail = p.error
    runs = mode["runs"] if a.runs is None else a.runs
    if runs < 1:  # before the mode's minimum: "use --mode test" would not help
        fail(f"--runs must be at least 1 (got {runs})")
    if runs < mode["min_runs"]:
        fail(f"--runs {runs}: {a.mode} mode needs at least {mode['min_runs']} runs "
             "(medians of at least 5 runs, SPEC.md section 8); use --mode test for fewer")
    reps = mode["reps"] if a.reps is None else a.reps
    if reps < 1:
        fail("--reps must be at least 1")
    policies = mode["policies"] if a.policies is None else split_list(a.policies)
    if not policies:
        fail("--policies is empty")
    kernels = _kernels(a.kernels, fail)
    _dirs(a, fail)
    workers = list(range(1, nproc() + 1)) if a.workers is None else \
        _int_list(a.workers, "--workers", 1, "every worker count must be at least 1", fail)
    timeout = mode["timeout"] if a.timeout is None else a.timeout
    if not math.isfinite(timeout) or timeout <= 0:
        fail(f"--timeout must be a positive finite number of seconds (got {timeout:g})")
    return Options(
        mode=a.mode, runs=runs, reps=min(reps, runs), argv=list(argv), kernels=kernels,
        systems=_systems(a.systems, fail), policies_requested=policies,
        policies_explicit=a.policies is not None, workers=workers,
        steal=_steal(a, mode, kernels, fail), steal_auto=a.steal_cost == "auto",
        steal_workers=_int_list(a.steal_cost_workers, "--steal-cost-workers", 2,
                                "the steal cost needs at least 2 workers", fail),
        timeout=timeout, cap=_cap(a, mode, fail),
        out=Path(a.out) if a.out else REPO / "docs" / "results",
        bin_map=_bins(a.bin, fail), bin_dir=a.bin_dir, build_dir=a.build_dir,
        clang_build_dir=a.clang_build_dir, rust_dir=a.rust_dir, no_plots=a.no_plots,
        dry_run=a.dry_run)


def say(msg):
    print(msg, file=sys.stderr)


def prepare(opts):
    """Discovery, the plan (trimmed to the mode's budget) and its estimate."""
    inv = planning.discover(opts)
    plan = planning.build_plan(opts, inv)
    for n in inv.notes:
        say(f"note: {n}")
    estimator = Estimator(opts.mode, opts.cap, opts.runs, load_prior(opts.out), opts.reps)

    def note(msg):
        inv.notes.append(msg)
        say(f"note: {msg}")
    plan = trim_to_budget(plan, opts, inv, estimator,
                          lambda pl, p: planning.without_policy(pl, opts, inv, p), note)
    return inv, plan, estimator


def announce(opts, inv, plan, estimator):
    """The plan and its estimate on stderr; returns the estimated seconds."""
    total, est, per_kernel = estimator.plan_cost(plan, inv)
    say(f"weft bench: mode {opts.mode}, {len(plan.kernels)} kernels x workers "
        f"{','.join(map(str, opts.workers))} x {len(plan.configs)} configurations "
        f"({', '.join(c.label for c in plan.configs)}) x {opts.runs} runs "
        f"({' + '.join(map(str, opts.blocks))} per process, alternating)"
        + (f" + steal cost {steal_variant(plan.steal)} at P="
           f"{','.join(map(str, opts.steal_workers))}" if plan.steal else ""))
    say(f"time cap of a non-serial run: {opts.cap.describe()}")
    for s, reason in inv.missing_bin.items():
        say(f"missing: {s}: {reason}")
    prior = estimator.prior
    if prior.empty:
        source = "from built-in guesses"
    elif estimator.same_mode:
        source = "from the previous run's timings"
    else:
        source = f"from built-in guesses and the ratios of the previous {prior.mode} run"
    top = sorted(per_kernel.items(), key=lambda kv: -kv[1])[:3]
    say(f"{total} runs, estimated {fmt_dur(est)} ({source})"
        + (f"; most of it: {', '.join(f'{k} {fmt_dur(t)}' for k, t in top)}" if top else ""))
    if opts.budget and est > opts.budget:
        say(f"warning: the estimate exceeds the {fmt_dur(opts.budget)} budget of {opts.mode} "
            f"mode; narrow --kernels, --policies or --systems")
    return est


def print_plan(plan, inv):
    for g in plan.groups:
        cf = [c.label for c in g.configs if plan.available(c, g, inv)]
        say(f"  {g.title}: {' '.join(cf) or '(nothing)'}")


def execute(opts, inv, plan, estimator, total):
    progress = Progress(total, estimator)
    runner = Runner(opts, inv, plan, progress)
    t0 = time.monotonic()
    try:
        runner.execute()
    except KeyboardInterrupt:
        runner.interrupted = True
        progress.say("interrupted: writing what has run so far")
    progress.finish()
    return runner, time.monotonic() - t0


def make_meta(opts, inv, plan, runner, cells, started, elapsed, est):
    cmd_path = os.path.relpath(REPO / "bench" / "run.py", Path.cwd())
    return {"command": shlex.join(["python3", cmd_path] + opts.argv),
            "argv": opts.argv, "cwd": str(Path.cwd()),
            "date": started.isoformat(timespec="seconds"),
            "finished": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "mode": opts.mode, "runs_per_config": opts.runs, "reps_per_process": opts.reps,
            "workers": opts.workers,
            "kernels": plan.kernels, "systems": opts.systems, "policies": plan.policies,
            "steal_cost_variant": steal_variant(plan.steal) if plan.steal else None,
            "cap": {"factor": opts.cap.factor, "seconds": opts.cap.seconds,
                    "floor_s": opts.cap.floor_s, "timeout_s": opts.timeout},
            "default_policy": analyse.default_policy_name(cells, inv.default_policy),
            "weft_policy_list": inv.policies, "machine": machine_info(),
            "elapsed_s": round(elapsed, 3), "estimated_s": round(est, 3),
            "runs_done": len(runner.runs),
            "processes": len({(r.kernel, r.variant, r.workers, r.label, r.run - r.rep)
                              for r in runner.runs}),
            "interrupted": runner.interrupted,
            "binaries": {s: str(p) for s, p in inv.binaries.items()},
            "scrubbed_env": scrubbed_env(),
            "missing_binaries": inv.missing_bin}


def write_outputs(opts, inv, plan, runner, meta, cells, idx):
    """The plots first (the slow part), then results.json, results.csv and latest.md replaced
    together (output.replace_all): an interruption or a failure before then leaves the previous
    run's outputs as they were, never this run's data beside the previous run's report."""
    out = opts.out
    out.mkdir(parents=True, exist_ok=True)
    shown, note = ([], "plots not drawn (--no-plots)") if opts.no_plots else \
        plots.draw_plots(opts, plan, cells, idx, out)
    if note:
        say(note)
    ctx = report.ReportContext(opts, plan, inv, meta, cells, idx, runner.runs, shown, note)
    output.replace_all({out / "results.json": output.json_text(meta, plan, inv, cells, runner.runs),
                        out / "results.csv": output.csv_text(cells),
                        out / "latest.md": report.report(ctx)})


def check_out(out):
    """None if --out is (or can be made) a writable folder, else why not: checked before the
    first run, not after every benchmark has run."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".weft-bench-write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        return f"--out {out}: not a writable folder ({e.strerror or e})"
    return None


def exit_code(runner):
    if runner.interrupted:
        return 130
    bad = [r for r in runner.runs if r.status in R.FAILURES]
    if bad:
        say(f"*** {sum(r.runs_covered for r in bad)} run(s) WRONG or FAILED:")
        for r in bad[:20]:
            say(f"***   {r.status} {r.label} {r.kernel} P={r.workers}: {r.reason}")
        return 1
    if not any(r.status == R.OK for r in runner.runs):
        say("no run succeeded (no binary found, or every configuration missing)")
        return 4
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    opts = parse_args(argv)
    started = datetime.datetime.now().astimezone()
    try:
        inv, plan, estimator = prepare(opts)
    except planning.UsageError as e:
        say(f"bench/run.py: error: {e}")
        return 2
    est = announce(opts, inv, plan, estimator)
    if not inv.binaries:
        # Nothing can run: an all-missing report would replace the previous run's (docs/results
        # by default, the committed figures) for nothing.  A dry run says so too: the plan is
        # made from what the binaries offer, so without them it is empty, and "0 runs,
        # estimated 0:00" read as a plan that costs nothing (before stop 47).
        say(f"no benchmark binary found: nothing {'planned' if opts.dry_run else 'run'}, nothing "
            f"written ({opts.out} keeps what it had); build them first (scripts/build-bench.sh, "
            f"or scripts/bench.sh does both)")
        return 4
    if opts.dry_run:
        print_plan(plan, inv)
        return 0
    why = check_out(opts.out)
    if why:
        say(f"bench/run.py: error: {why}")
        return 2
    total = estimator.plan_cost(plan, inv)[0]
    runner, elapsed = execute(opts, inv, plan, estimator, total)
    if runner.interrupted and not runner.runs:
        # nothing to report: an empty report would replace the previous run's (docs/results
        # by default) for nothing
        say(f"interrupted before any run finished: nothing written ({opts.out} keeps what it "
            f"had)")
        return 130
    cells, idx = analyse.analyse(runner.runs, plan, inv)
    meta = make_meta(opts, inv, plan, runner, cells, started, elapsed, est)
    write_outputs(opts, inv, plan, runner, meta, cells, idx)
    say(f"report: {opts.out / 'latest.md'} ({len(runner.runs)} runs in {fmt_dur(elapsed)})")
    return exit_code(runner)
