#!/usr/bin/env python3
"""weft benchmark driver: runs the benchmark binaries side by side and writes the report.

    python3 bench/run.py [--mode test|quick|full] [--kernels a,b] [--systems a,b]
                         [--policies default,lazy-bf] [--workers 1,2] [--runs 5]
                         [--build-dir build] [--clang-build-dir build-clang]
                         [--rust-dir bench/rust/target/release] [--bin-dir DIR]
                         [--bin SYSTEM=PATH] [--steal-cost auto|none|L:R]
                         [--timeout S] [--out docs/results] [--dry-run]

Every binary follows the protocol of bench/KERNELS.md (one JSON line per run). For each
kernel and worker count the driver forms the list of configurations (each system; for weft
each policy) and runs them round-robin, A B C A B C ..., `--runs` times, so that ratios are
measured side by side on a shared, noisy machine (SPEC.md section 8). It reports medians.
The serial binary (the baseline Ts) runs in every group, always with --workers 1. Before
starting it prints the number of runs and the estimated time; while running, a progress
line on stderr (runs done/total, elapsed, estimated time left).

Outcomes of a run:
  ok        exit 0 and a JSON line with "ok": true
  missing   exit 2 (bad arguments: the binary does not know the kernel, the variant or the
            policy, e.g. "not implemented") or no binary at all: the column is reported
            missing with its reason; not an error
  timeout   the run took longer than --timeout: reported, the configuration is skipped for
            the rest of that kernel; not an error
  WRONG     exit 3, "ok": false, or a checksum unlike the serial binary's: a loud failure
  FAILED    any other exit code or no JSON line: a loud failure
The driver exits 1 when any run was WRONG or FAILED (after writing everything), 2 on bad
arguments, 4 when not a single run succeeded, 130 when interrupted, else 0.

Outputs in --out: results.json (every run, the medians, the steal costs, the machine),
results.csv (one row per configuration), latest.md (the report) and PNG plots (matplotlib,
imported only for them).
"""
import argparse
import csv
import datetime
import json
import math
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SYSTEMS = ["serial", "weft", "tbb", "omp-gcc", "omp-clang", "rayon", "chili"]
PEERS = ["tbb", "omp-gcc", "omp-clang", "rayon", "chili"]
RUST_SYSTEMS = {"rayon", "chili"}
# weft policies of SPEC.md section 4 ("serial" is the elision inside weft; ask for it by name)
POLICIES = ["ws", "ws-ap", "wool", "lazy-df", "lazy-df2", "lazy-bf", "heartbeat", "adf", "dfd",
            "fifo"]
KERNELS = ["fib", "nqueens", "stress", "mm", "ssf", "spmv", "bfs", "floyd", "uts-geo",
           "uts-bin", "tsp", "mergesort", "quickhull"]

MODES = {
    # runs: default repetitions; policies: default weft policies; timeout: per run (s);
    # steal: the steal-cost variant's L:R; budget: what the whole run should stay under.
    "test": {"runs": 1, "min_runs": 1, "policies": ["default"], "timeout": 60,
             "steal": "1000:20", "budget": None},
    "quick": {"runs": 5, "min_runs": 5, "policies": ["default", "lazy-bf", "heartbeat"],
              "timeout": 30, "steal": "30000:2000", "budget": 600},
    "full": {"runs": 5, "min_runs": 5, "policies": ["default"] + POLICIES, "timeout": 3600,
             "steal": "30000:20000", "budget": None},
}

# Wall seconds of one run (process start, input generation, warm-up, timed run, in-process
# oracle), averaged over the systems, before anything was measured on this machine. Only
# used for the estimate printed before starting; a previous results.json of the same mode in
# --out replaces them, and the progress line corrects them as runs complete.
GUESS_S = {
    "test": {"default": 0.03},
    # measured once on the 2-core development machine with the first C++ and Rust binaries
    # (uts: tbb and omp create a task per node and take 2-6 s a run at quick size)
    "quick": {"fib": 0.25, "nqueens": 0.25, "stress": 0.6, "mm": 0.03, "ssf": 0.02,
              "spmv": 0.17, "bfs": 0.4, "floyd": 0.04, "uts-geo": 1.4, "uts-bin": 1.6,
              "tsp": 0.02, "mergesort": 0.4, "quickhull": 0.1, "default": 0.5},
    # scaled from quick by the work ratio of the sizes (no warm-up at full size)
    "full": {"fib": 30.0, "nqueens": 40.0, "stress": 3.5, "mm": 0.5, "ssf": 0.2, "spmv": 2.0,
             "bfs": 8.0, "floyd": 14.0, "uts-geo": 240.0, "uts-bin": 1000.0, "tsp": 4.0,
             "mergesort": 35.0, "quickhull": 7.0, "default": 30.0},
}
STEAL_NS_PER_ITER = 1.5  # the leaf loop: one dependent multiply-add per iteration

# environment variables that would change what a binary does behind the driver's back
SCRUB_ENV = ["WEFT_POLICY", "WEFT_WORKERS", "WEFT_TRACE", "WEFT_HEARTBEAT_US", "WEFT_QUOTA",
             "OMP_NUM_THREADS", "RAYON_NUM_THREADS", "TBB_NUM_THREADS"]

STATUS_OK, STATUS_MISSING, STATUS_TIMEOUT = "ok", "missing", "timeout"
STATUS_WRONG, STATUS_FAILED = "WRONG", "FAILED"


class Config:
    """One column: a system, and for weft a policy ("default" = no --policy)."""

    def __init__(self, system, policy=None):
        self.system = system
        self.policy = policy

    @property
    def label(self):
        return f"weft:{self.policy}" if self.system == "weft" else self.system

    def __repr__(self):
        return self.label


class Plan:
    """What to run: groups of (kernel, variant, workers) with their configurations."""

    def __init__(self):
        self.groups = []  # dicts: kernel, variant, workers, configs, runs


# --------------------------------------------------------------------------------------
# command line

def split_list(text):
    return [x.strip() for x in text.split(",") if x.strip()]


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="bench/run.py", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Report: <out>/latest.md; data: <out>/results.json, <out>/results.csv.")
    p.add_argument("--mode", choices=list(MODES), default="quick",
                   help="input sizes and defaults (default: quick)")
    p.add_argument("--kernels", default=None,
                   help=f"comma list, or 'all' (default: {','.join(KERNELS)})")
    p.add_argument("--systems", default=None,
                   help=f"comma list of {','.join(SYSTEMS)} ('omp' = both omp; default: all)")
    p.add_argument("--policies", default=None,
                   help="weft policies: comma list of 'default' (no --policy) and names, or "
                        "'all' (default: quick: default,lazy-bf,heartbeat, less those "
                        "that would take it past 80%% of its 10-minute budget; full: all; "
                        "test: default)")
    p.add_argument("--workers", default=None, help="comma list (default: 1..nproc)")
    p.add_argument("--runs", type=int, default=None,
                   help="runs per configuration, median taken (default 5; test: 1; "
                        "quick/full refuse fewer than 5)")
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
                   help="seconds per run before it is killed and reported as a timeout "
                        "(default: test 60, quick 30, full 3600)")
    p.add_argument("--out", default=None, help="output directory (default: docs/results)")
    p.add_argument("--no-plots", action="store_true", help="do not draw the PNG plots")
    p.add_argument("--dry-run", action="store_true",
                   help="print the plan and the estimate, run no benchmark (the binaries are "
                        "still asked for --kernel list and weft for its default policy)")
    a = p.parse_args(argv)
    mode = MODES[a.mode]

    def fail(msg):
        p.error(msg)

    if a.runs is None:
        a.runs = mode["runs"]
    if a.runs < mode["min_runs"]:
        fail(f"--runs {a.runs}: {a.mode} mode needs at least {mode['min_runs']} runs "
             "(medians of at least 5 runs, SPEC.md section 8); use --mode test for fewer")
    if a.runs < 1:
        fail("--runs must be at least 1")

    if a.kernels is None:
        a.kernel_list = list(KERNELS)
    elif a.kernels == "all":
        a.kernel_list = None  # resolved from the binaries' --kernel list
    else:
        a.kernel_list = split_list(a.kernels)
        if not a.kernel_list:
            fail("--kernels is empty")

    if a.systems is None:
        a.system_list = list(SYSTEMS)
    else:
        names = []
        for s in split_list(a.systems):
            group = ["omp-gcc", "omp-clang"] if s == "omp" else [s]
            for g in group:
                if g not in SYSTEMS:
                    fail(f"--systems: unknown system '{s}' (accepted: {', '.join(SYSTEMS)}, omp)")
                if g not in names:
                    names.append(g)
        a.system_list = [s for s in SYSTEMS if s in names]

    pol = mode["policies"] if a.policies is None else split_list(a.policies)
    policies = []
    for x in pol:
        for y in (["default"] + POLICIES if x == "all" else [x]):
            if y != "default" and y not in POLICIES + ["serial"]:
                fail(f"--policies: unknown policy '{y}' (accepted: default, all, serial, "
                     f"{', '.join(POLICIES)})")
            if y not in policies:
                policies.append(y)
    if "weft" in a.system_list and not policies:
        fail("--policies is empty")
    a.policy_list = policies

    if a.workers is None:
        a.worker_list = list(range(1, nproc() + 1))
    else:
        try:
            a.worker_list = sorted({int(x) for x in split_list(a.workers)})
        except ValueError:
            fail(f"--workers must be a comma list of integers (got '{a.workers}')")
        if not a.worker_list or a.worker_list[0] < 1:
            fail("--workers: every worker count must be at least 1")
    try:
        a.steal_workers = sorted({int(x) for x in split_list(a.steal_cost_workers)})
    except ValueError:
        fail(f"--steal-cost-workers must be a comma list of integers")
    if not a.steal_workers or a.steal_workers[0] < 2:
        fail("--steal-cost-workers: the steal cost needs at least 2 workers")

    sc = a.steal_cost
    if sc == "none":
        a.steal = None
    elif sc == "auto":
        in_list = a.kernel_list is None or "stress" in a.kernel_list
        a.steal = parse_steal(mode["steal"]) if in_list else None
    else:
        a.steal = parse_steal(sc)
        if a.steal is None:
            fail(f"--steal-cost must be auto, none or L:R with positive integers (got '{sc}')")

    a.timeout = mode["timeout"] if a.timeout is None else a.timeout
    if a.timeout <= 0:
        fail("--timeout must be positive")
    a.bin_map = {}
    for b in a.bin:
        if "=" not in b:
            fail(f"--bin needs SYSTEM=PATH (got '{b}')")
        s, path = b.split("=", 1)
        if s not in SYSTEMS:
            fail(f"--bin: unknown system '{s}'")
        a.bin_map[s] = Path(path)
    a.out = Path(a.out) if a.out else REPO / "docs" / "results"
    return a


def parse_steal(text):
    parts = text.split(":")
    if len(parts) != 2 or not all(x.isdigit() and int(x) > 0 for x in parts):
        return None
    return int(parts[0]), int(parts[1])


def steal_variant(steal):
    return f"steal-cost:{steal[0]}:{steal[1]}"


def nproc():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# --------------------------------------------------------------------------------------
# the machine

def machine_info():
    info = {"nproc": nproc(), "cpu_model": "unknown", "logical_cpus": os.cpu_count(),
            "hostname": platform.node(), "kernel": platform.release(),
            "python": platform.python_version()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    info["cpu_model"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        info["loadavg_at_start"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    try:
        rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        if rev.returncode == 0:
            dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain",
                                    "--untracked-files=no"],
                                   capture_output=True, text=True, timeout=10)
            info["git"] = rev.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return info


# --------------------------------------------------------------------------------------
# binaries

def find_binary(system, a):
    """(path, None) or (None, reason)."""
    name = f"weft-bench-{system}"
    if system in a.bin_map:
        cands = [a.bin_map[system]]
    elif a.bin_dir:
        cands = [Path(a.bin_dir) / name]
    else:
        if system in RUST_SYSTEMS:
            dirs = [Path(a.rust_dir) if a.rust_dir else REPO / "bench/rust/target/release"]
        elif system == "omp-clang":
            dirs = [Path(a.clang_build_dir) if a.clang_build_dir else REPO / "build-clang"]
        else:
            dirs = [Path(a.build_dir) if a.build_dir else REPO / "build"]
        cands = []
        for d in dirs:
            cands += [d / name, d / "bench" / name]
            if d.is_dir():
                cands += sorted(p for p in d.rglob(name) if "CMakeFiles" not in p.parts)
    for c in cands:
        if c.is_file() and os.access(c, os.X_OK):
            return c.resolve(), None
    where = ", ".join(str(c) for c in cands[:3])
    return None, f"binary {name} not found (looked at {where})"


def child_env():
    env = dict(os.environ)
    for k in SCRUB_ENV:
        env.pop(k, None)
    return env


def run_binary(path, args, timeout):
    """Runs one binary; returns (rc or None on timeout, stdout, stderr, wall seconds)."""
    t0 = time.monotonic()
    try:
        p = subprocess.run([str(path)] + args, capture_output=True, text=True,
                           timeout=timeout, env=child_env(), stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return None, out, err, time.monotonic() - t0
    except OSError as e:
        return -1, "", f"cannot run {path}: {e}", time.monotonic() - t0


def last_json_line(stdout):
    for line in reversed(stdout.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                return None
    return None


def tail(text, n=400):
    text = (text or "").strip()
    return text if len(text) <= n else "..." + text[-n:]


def classify(rc, stdout, stderr, timeout):
    """Returns (status, parsed JSON or None, reason)."""
    j = last_json_line(stdout)
    if rc is None:
        return STATUS_TIMEOUT, j, f"timed out after {timeout:g} s"
    if rc == 2:
        return STATUS_MISSING, j, tail(stderr.strip().splitlines()[0] if stderr.strip()
                                       else "exit 2 (bad arguments) without a message", 300)
    if rc == 3:
        return STATUS_WRONG, j, "wrong checksum (exit 3): " + tail(stderr, 300)
    if rc != 0:
        return STATUS_FAILED, j, f"exit code {rc}: " + tail(stderr, 300)
    if j is None:
        return STATUS_FAILED, None, "exit 0 but no JSON line on stdout"
    if j.get("ok") is False:
        return STATUS_WRONG, j, "exit 0 but \"ok\": false"
    if not isinstance(j.get("time_s"), (int, float)):
        return STATUS_FAILED, j, "JSON line without a numeric time_s"
    return STATUS_OK, j, ""


# --------------------------------------------------------------------------------------
# planning and estimates

def guess_for(mode, kernel, variant, prior):
    if variant:
        if (kernel, variant) in prior:
            return prior[(kernel, variant)]
        leaf, reps = parse_steal(variant.split(":", 1)[1]) or (1000, 20)
        once = reps * leaf * STEAL_NS_PER_ITER * 1e-9
        # tree on 2 workers + leaf_time + oracle (2 leaves) + warm-up, + process start
        return (0 if mode == "full" else 1.2) * once + 3.2 * once + 0.05
    if (kernel, "") in prior:
        return prior[(kernel, "")]
    g = GUESS_S[mode]
    return g.get(kernel, g["default"])


def load_prior(out_dir, mode):
    """Mean wall seconds per run, per (kernel, variant), of a previous run of this mode."""
    path = out_dir / "results.json"
    try:
        with open(path) as f:
            old = json.load(f)
        if old.get("meta", {}).get("mode") != mode:
            return {}
        acc = {}
        for r in old.get("runs", []):
            if r.get("status") in (STATUS_OK, STATUS_WRONG) and r.get("wall_s"):
                acc.setdefault((r["kernel"], r.get("variant", "")), []).append(r["wall_s"])
        return {k: statistics.fmean(v) for k, v in acc.items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def fmt_dur(s):
    if s is None or not math.isfinite(s):
        return "?"
    s = int(round(s))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m{s % 60:02d}s"
    return f"{s // 60}:{s % 60:02d}"


class Progress:
    def __init__(self, total, mode, prior):
        self.total = total
        self.done = 0
        self.t0 = time.monotonic()
        self.mode = mode
        self.prior = prior
        self.obs = {}        # (kernel, variant) -> [wall]
        self.guess_done = 0.0
        self.wall_done = 0.0
        self.tty = sys.stderr.isatty()
        self.last_print = 0.0
        self.last_len = 0

    def record(self, kernel, variant, wall):
        self.done += 1
        self.obs.setdefault((kernel, variant), []).append(wall)
        self.guess_done += guess_for(self.mode, kernel, variant, self.prior)
        self.wall_done += wall

    def estimate_left(self, remaining):
        """remaining: list of (kernel, variant, count) not yet run."""
        corr = 1.0
        if self.guess_done > 0:
            corr = min(5.0, max(0.2, self.wall_done / self.guess_done))
        left = 0.0
        for kernel, variant, n in remaining:
            o = self.obs.get((kernel, variant))
            per = statistics.fmean(o) if o else corr * guess_for(self.mode, kernel, variant,
                                                                 self.prior)
            left += per * n
        return left

    def show(self, what, remaining, force=False):
        now = time.monotonic()
        if not self.tty and not force and now - self.last_print < 10:
            return
        self.last_print = now
        el = now - self.t0
        pct = 100.0 * self.done / self.total if self.total else 100.0
        line = (f"[{self.done}/{self.total} {pct:4.1f}%] {what}  elapsed {fmt_dur(el)}"
                f"  left ~{fmt_dur(self.estimate_left(remaining))}")
        if self.tty:
            pad = max(0, self.last_len - len(line))
            sys.stderr.write("\r" + line + " " * pad)
            self.last_len = len(line)
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def finish(self):
        if self.tty and self.last_len:
            sys.stderr.write("\n")
            sys.stderr.flush()

    def say(self, msg):
        """A message that must not be overwritten by the progress line."""
        if self.tty and self.last_len:
            sys.stderr.write("\n")
            self.last_len = 0
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()


# --------------------------------------------------------------------------------------
# the run

class Driver:
    def __init__(self, a):
        self.a = a
        self.size = a.mode
        self.binaries = {}      # system -> Path
        self.missing_bin = {}   # system -> reason
        self.kernel_lists = {}  # system -> set of kernels or None if unknown
        self.default_policy = None
        self.configs = []
        self.skipped = {}       # (label, kernel, variant) -> (status, reason)
        self.runs = []
        self.seq = 0
        self.interrupted = False
        self.notes = []
        self.groups = []        # the plan's groups, set by plan()

    # -- discovery -------------------------------------------------------------------
    def discover(self):
        for s in self.a.system_list:
            path, reason = find_binary(s, self.a)
            if path is None:
                self.missing_bin[s] = reason
                continue
            self.binaries[s] = path
            rc, out, err, _ = run_binary(path, ["--kernel", "list"], 30)
            if rc == 0 and out.strip():
                self.kernel_lists[s] = set(out.split())
            else:
                self.kernel_lists[s] = None
        if self.a.kernel_list is None:  # --kernels all
            names = set()
            for ks in self.kernel_lists.values():
                names |= ks or set()
            self.a.kernel_list = [k for k in KERNELS if k in names] + \
                sorted(names - set(KERNELS))
            if self.a.steal_cost == "auto" and "stress" in self.a.kernel_list:
                self.a.steal = parse_steal(MODES[self.a.mode]["steal"])
        # the default policy's name: ask weft once (cheapest size) and drop an explicit
        # duplicate of it from the policy list
        if "weft" in self.binaries and "default" in self.a.policy_list:
            probe_k = next((k for k in self.a.kernel_list
                            if self.kernel_lists.get("weft") is None
                            or k in self.kernel_lists["weft"]), None)
            if probe_k:
                rc, out, err, _ = run_binary(self.binaries["weft"],
                                             ["--kernel", probe_k, "--size", "test",
                                              "--workers", "1"], 60)
                j = last_json_line(out)
                if rc in (0, 3) and j and j.get("policy"):
                    self.default_policy = j["policy"]
            if self.default_policy in self.a.policy_list:
                self.a.policy_list.remove(self.default_policy)
                self.notes.append(f"weft's default policy is {self.default_policy}: its "
                                  f"column is weft:default (not run twice)")
        for s in self.a.system_list:
            if s == "weft":
                self.configs += [Config("weft", p) for p in self.a.policy_list]
            else:
                self.configs.append(Config(s))

    def available(self, cfg, kernel, variant):
        if cfg.system not in self.binaries:
            return False
        if (cfg.label, kernel, variant) in self.skipped:
            return False
        return True

    def plan(self):
        pl = Plan()
        for k in self.a.kernel_list:
            for w in self.a.worker_list:
                pl.groups.append({"kernel": k, "variant": "", "workers": w,
                                  "configs": list(self.configs)})
        if self.a.steal is not None:
            v = steal_variant(self.a.steal)
            for w in self.a.steal_workers:
                pl.groups.append({"kernel": "stress", "variant": v, "workers": w,
                                  "configs": [c for c in self.configs
                                              if c.system != "serial"]})
        # what --kernel list already tells
        for g in pl.groups:
            for c in g["configs"]:
                ks = self.kernel_lists.get(c.system)
                if c.system in self.binaries and ks is not None and g["kernel"] not in ks:
                    self.skipped[(c.label, g["kernel"], g["variant"])] = (
                        STATUS_MISSING,
                        f"kernel {g['kernel']} not in `weft-bench-{c.system} --kernel list`")
        self.groups = pl.groups
        return pl

    def count_runs(self, pl, start=0):
        out = []
        for g in pl.groups[start:]:
            n = sum(1 for c in g["configs"] if self.available(c, g["kernel"], g["variant"]))
            out.append((g["kernel"], g["variant"], n * self.a.runs))
        return out

    # -- running ---------------------------------------------------------------------
    def run_one(self, cfg, g, r):
        # the serial elision runs on one thread whatever the group's worker count (its
        # binary may refuse --workers > 1); it still runs in every group, side by side
        workers = 1 if cfg.system == "serial" else g["workers"]
        args = ["--kernel", g["kernel"], "--size", self.size, "--workers", str(workers)]
        if cfg.system == "weft" and cfg.policy != "default":
            args += ["--policy", cfg.policy]
        if g["variant"]:
            args += ["--variant", g["variant"]]
        rc, out, err, wall = run_binary(self.binaries[cfg.system], args, self.a.timeout)
        status, j, reason = classify(rc, out, err, self.a.timeout)
        self.seq += 1
        rec = {"seq": self.seq, "kernel": g["kernel"], "variant": g["variant"],
               "workers": g["workers"], "system": cfg.system,
               "policy": cfg.policy if cfg.system == "weft" else None,
               "label": cfg.label, "run": r, "status": status, "rc": rc,
               "wall_s": round(wall, 6), "reason": reason,
               "command": shlex.join([str(self.binaries[cfg.system])] + args)}
        if j:
            for k in ("time_s", "checksum", "ok", "stats", "leaf_time_s", "reps",
                      "leaf_iterations", "height"):
                if k in j:
                    rec[k] = j[k]
            rec["reported_policy"] = j.get("policy")
        if status != STATUS_OK and err:
            rec["stderr"] = tail(err, 1000)
        self.runs.append(rec)
        return rec

    def execute(self, pl, progress):
        for gi, g in enumerate(pl.groups):
            key_note = f"{g['kernel']}{' ' + g['variant'] if g['variant'] else ''} P={g['workers']}"
            for r in range(self.a.runs):
                for cfg in g["configs"]:
                    if not self.available(cfg, g["kernel"], g["variant"]):
                        continue
                    what = f"{key_note} {cfg.label} run {r + 1}/{self.a.runs}"
                    progress.show(what, self.remaining(pl, gi, r, cfg))
                    rec = self.run_one(cfg, g, r)
                    progress.record(g["kernel"], g["variant"], rec["wall_s"])
                    self.react(rec, cfg, g, pl, progress)
            progress.show(f"{key_note} done", self.remaining(pl, gi + 1, 0, None), force=True)

    def remaining(self, pl, gi, r, cfg):
        """Runs left, from run r of config cfg in group gi on (cfg included)."""
        left = []
        if gi < len(pl.groups):
            g = pl.groups[gi]
            avail = [c for c in g["configs"] if self.available(c, g["kernel"], g["variant"])]
            pos = avail.index(cfg) if cfg in avail else 0
            n = (self.a.runs - r) * len(avail) - pos
            left.append((g["kernel"], g["variant"], n))
            left += self.count_runs(pl, gi + 1)
        return left

    def react(self, rec, cfg, g, pl, progress):
        st = rec["status"]
        key = (cfg.label, g["kernel"], g["variant"])
        if st == STATUS_MISSING:
            self.skipped[key] = (STATUS_MISSING, rec["reason"])
            progress.total -= self.runs_left_for(cfg, g, pl, rec["run"])
            progress.say(f"missing: {cfg.label} {g['kernel']}"
                         f"{' ' + g['variant'] if g['variant'] else ''}: {rec['reason']}")
        elif st == STATUS_TIMEOUT:
            self.skipped[key] = (STATUS_TIMEOUT, rec["reason"])
            progress.total -= self.runs_left_for(cfg, g, pl, rec["run"])
            progress.say(f"timeout: {cfg.label} {g['kernel']} P={g['workers']}: "
                         f"{rec['reason']}; skipped for the rest of this kernel")
        elif st == STATUS_WRONG:
            progress.say(f"*** WRONG CHECKSUM: {cfg.label} {g['kernel']} P={g['workers']}: "
                         f"{rec['reason']}\n    {rec['command']}")
        elif st == STATUS_FAILED:
            progress.say(f"*** FAILED: {cfg.label} {g['kernel']} P={g['workers']}: "
                         f"{rec['reason']}\n    {rec['command']}")

    def runs_left_for(self, cfg, g, pl, r):
        """Scheduled runs of cfg for this kernel/variant after run r of the current group."""
        n = self.a.runs - r - 1
        seen = False
        for h in pl.groups:
            if h is g:
                seen = True
                continue
            if seen and h["kernel"] == g["kernel"] and h["variant"] == g["variant"] \
                    and cfg in h["configs"]:
                n += self.a.runs
        return n


# --------------------------------------------------------------------------------------
# analysis

def median_or_none(xs):
    return statistics.median(xs) if xs else None


def int_if_whole(x):
    return int(x) if isinstance(x, float) and x.is_integer() else x


def analyse(drv):
    """Medians per (kernel, variant, workers, label), cross-system checksum check, steal costs."""
    cells = {}
    order = []
    for rec in drv.runs:
        key = (rec["kernel"], rec["variant"], rec["workers"], rec["label"])
        if key not in cells:
            cells[key] = {"runs": []}
            order.append(key)
        cells[key]["runs"].append(rec)

    # a checksum unlike the serial binary's (else the most common one) is WRONG too
    by_group = {}
    for rec in drv.runs:
        if rec["status"] == STATUS_OK and "checksum" in rec:
            by_group.setdefault((rec["kernel"], rec["variant"], rec["workers"]), []).append(rec)
    for gkey, recs in by_group.items():
        serial = [r["checksum"] for r in recs if r["system"] == "serial"]
        pool = serial or [r["checksum"] for r in recs]
        ref = max(set(pool), key=pool.count)
        for r in recs:
            if r["checksum"] != ref:
                r["status"] = STATUS_WRONG
                whose = "the serial binary's" if serial else "the most common one,"
                r["reason"] = f"checksum {r['checksum']} differs from {whose} {ref}"

    medians = []
    for key in order:
        kernel, variant, workers, label = key
        recs = cells[key]["runs"]
        ok = [r for r in recs if r["status"] == STATUS_OK]
        statuses = {r["status"] for r in recs}
        if STATUS_WRONG in statuses:
            status = STATUS_WRONG
        elif STATUS_FAILED in statuses:
            status = STATUS_FAILED
        elif ok:
            status = STATUS_OK
        elif STATUS_TIMEOUT in statuses:
            status = STATUS_TIMEOUT
        else:
            status = STATUS_MISSING
        reasons = [r["reason"] for r in recs if r["reason"]]
        times = [r["time_s"] for r in ok]
        m = {"kernel": kernel, "variant": variant, "workers": workers, "label": label,
             "system": recs[0]["system"], "policy": recs[0]["policy"], "status": status,
             "n_ok": len(ok), "n_runs": len(recs),
             "median_s": median_or_none(times),
             "min_s": min(times) if times else None, "max_s": max(times) if times else None,
             "times_s": times, "reason": reasons[0] if reasons and status != STATUS_OK else ""}
        pols = [r.get("reported_policy") for r in ok if r.get("reported_policy")]
        if pols:
            m["reported_policy"] = max(set(pols), key=pols.count)
        stats = [r["stats"] for r in ok if isinstance(r.get("stats"), dict)]
        if stats:
            names = sorted({k for s in stats for k in s})
            m["stats_median"] = {n: int_if_whole(median_or_none([s[n] for s in stats
                                                                  if n in s]))
                                 for n in names}
        if variant.startswith("steal-cost"):
            costs = []
            for r in ok:
                reps = r.get("reps")
                if reps is None:
                    p = parse_steal(variant.split(":", 1)[1])
                    reps = p[1] if p else None
                if isinstance(r.get("leaf_time_s"), (int, float)) and reps:
                    costs.append((r["time_s"] - r["leaf_time_s"]) / reps * 1e9)
            m["steal_cost_ns"] = median_or_none(costs)
            leafs = [r["leaf_time_s"] / r["reps"] * 1e9 for r in ok
                     if isinstance(r.get("leaf_time_s"), (int, float)) and r.get("reps")]
            m["leaf_ns"] = median_or_none(leafs)
            if ok and not costs:
                m["status"] = STATUS_MISSING
                m["reason"] = "the JSON line has no leaf_time_s/reps (see KERNELS.md, Variants)"
            if m.get("stats_median") and m["stats_median"].get("steals") is not None and ok:
                reps = ok[0].get("reps") or 1
                m["steals_per_tree"] = m["stats_median"]["steals"] / reps
        medians.append(m)

    # configurations that did not run in a group (missing binary, kernel or policy, a
    # timeout earlier, an interruption): a cell with the reason
    have = {(m["kernel"], m["variant"], m["workers"], m["label"]) for m in medians}
    for g in drv.groups:
        for c in g["configs"]:
            kk, v, w = g["kernel"], g["variant"], g["workers"]
            if (kk, v, w, c.label) in have:
                continue
            if c.system in drv.missing_bin:
                st, reason = STATUS_MISSING, drv.missing_bin[c.system]
            elif (c.label, kk, v) in drv.skipped:
                st, reason = drv.skipped[(c.label, kk, v)]
            else:
                st, reason = STATUS_MISSING, "not run (interrupted)"
            medians.append({"kernel": kk, "variant": v, "workers": w, "label": c.label,
                            "system": c.system,
                            "policy": c.policy if c.system == "weft" else None,
                            "status": st, "n_ok": 0, "n_runs": 0, "median_s": None,
                            "min_s": None, "max_s": None, "times_s": [],
                            "reason": reason})
    gpos = {(g["kernel"], g["variant"], g["workers"]): i for i, g in enumerate(drv.groups)}
    cpos = {c.label: i for i, c in enumerate(drv.configs)}
    medians.sort(key=lambda m: (gpos.get((m["kernel"], m["variant"], m["workers"]), 1 << 30),
                                cpos.get(m["label"], 1 << 30)))
    # Ts and ratios
    idx = {(m["kernel"], m["variant"], m["workers"], m["label"]): m for m in medians}
    for m in medians:
        if m["variant"]:
            continue
        ts = ts_for(idx, m["kernel"], m["workers"])
        m["ts_s"] = ts
        if ts and m["median_s"] and m["status"] == STATUS_OK:
            m["t_over_ts"] = m["median_s"] / ts
            m["speedup"] = ts / m["median_s"]
    return medians, idx


def ts_for(idx, kernel, workers):
    """The serial median of the same worker-count group (run side by side), else any."""
    m = idx.get((kernel, "", workers, "serial"))
    if m and m["status"] == STATUS_OK and m["median_s"]:
        return m["median_s"]
    others = [v["median_s"] for k, v in idx.items()
              if k[0] == kernel and k[1] == "" and k[3] == "serial" and v["status"] == STATUS_OK
              and v["median_s"]]
    return statistics.median(others) if others else None


def tasks_for(idx, kernel, label="weft:default"):
    """N_T = joins + loop_iterations of the weft run at 1 worker (median over runs)."""
    m = idx.get((kernel, "", 1, label))
    if not m or not m.get("stats_median"):
        return None
    s = m["stats_median"]
    if s.get("joins") is None and s.get("loop_iterations") is None:
        return None
    return (s.get("joins") or 0) + (s.get("loop_iterations") or 0)


# --------------------------------------------------------------------------------------
# output

def fmt_time(s):
    if s is None:
        return "—"
    if s >= 1:
        return f"{s:.3g} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    return f"{s * 1e6:.3g} µs"


def fmt_num(x, digits=3):
    if x is None:
        return "—"
    if x == 0:
        return "0"
    if abs(x) >= 10 ** digits:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def cell_status(m):
    """The table cell of a non-ok configuration, or None."""
    if m is None:
        return "—"
    st = m["status"]
    if st == STATUS_WRONG:
        return "**WRONG**"
    if st == STATUS_FAILED:
        return "**FAILED**"
    if st == STATUS_TIMEOUT:
        return "timeout"
    if st == STATUS_MISSING:
        return "missing"
    return None


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def write_json(drv, meta, medians, path):
    data = {"meta": meta,
            "configs": [{"label": c.label, "system": c.system,
                         "policy": c.policy if c.system == "weft" else None,
                         "binary": str(drv.binaries.get(c.system, "")) or None,
                         "missing": drv.missing_bin.get(c.system)} for c in drv.configs],
            "medians": medians,
            "steal_cost": [m for m in medians if m["variant"]],
            "runs": drv.runs}
    tmp = path.with_suffix(".json.tmp")
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, default=str)
        f.write("\n")
    tmp.replace(path)


def write_csv(medians, path):
    cols = ["kernel", "variant", "workers", "system", "policy", "label", "reported_policy",
            "status", "n_ok", "n_runs", "median_s", "min_s", "max_s", "ts_s", "t_over_ts",
            "speedup", "joins", "loop_iterations", "steals", "promotions", "steal_cost_ns",
            "leaf_ns", "reason"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for m in medians:
            row = dict(m)
            for k in ("joins", "loop_iterations", "steals", "promotions"):
                row[k] = (m.get("stats_median") or {}).get(k, "")
            w.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in cols})


def draw_plots(drv, medians, idx, out):
    """PNG plots next to the report; returns (list of (title, file), note)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [], ("plots not drawn: matplotlib is not installed "
                    "(`python3 -m pip install --user -r bench/requirements.txt`)")
    files = []
    kernels = [k for k in drv.a.kernel_list
               if any(m["kernel"] == k and m.get("speedup") for m in medians)]
    labels = [c.label for c in drv.configs if c.system != "serial"]
    cmap = plt.get_cmap("tab10" if len(labels) <= 10 else "tab20")
    colors = {lab: cmap(i % cmap.N) for i, lab in enumerate(labels)}
    if kernels:
        ncols = min(4, len(kernels))
        nrows = math.ceil(len(kernels) / ncols)
        fig, axes = plt.subplots(nrows, ncols, figsize=(3.6 * ncols, 3.0 * nrows),
                                 squeeze=False)
        ws = drv.a.worker_list
        for i, k in enumerate(kernels):
            ax = axes[i // ncols][i % ncols]
            ax.plot(ws, ws, ls="--", color="grey", lw=0.8, label="ideal")
            for lab in labels:
                pts = [(w, idx[(k, "", w, lab)]["speedup"]) for w in ws
                       if (k, "", w, lab) in idx and idx[(k, "", w, lab)].get("speedup")]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3,
                            label=lab, color=colors[lab])
            ax.set_title(k, fontsize=10)
            ax.set_xticks(ws)
            ax.set_xlabel("workers", fontsize=8)
            ax.set_ylabel("speedup over Ts", fontsize=8)
            ax.tick_params(labelsize=7)
            ax.grid(alpha=0.3)
        for j in range(len(kernels), nrows * ncols):
            axes[j // ncols][j % ncols].axis("off")
        handles, names = [], []
        for ax in axes.flat:
            for h, n in zip(*ax.get_legend_handles_labels()):
                if n not in names:
                    handles.append(h)
                    names.append(n)
        fig.legend(handles, names, loc="lower center", ncol=min(6, len(names)), fontsize=8)
        fig.suptitle(f"Speedup over the serial elision (Ts), {drv.a.mode} sizes, "
                     f"medians of {drv.a.runs} runs")
        fig.tight_layout(rect=(0, 0.06 + 0.02 * math.ceil(len(names) / 6), 1, 0.96))
        fig.savefig(out / "speedup.png", dpi=110)
        plt.close(fig)
        files.append(("Speedup over Ts vs workers, per kernel", "speedup.png"))

    k1 = [k for k in drv.a.kernel_list
          if any(idx.get((k, "", 1, lab), {}).get("t_over_ts") for lab in labels)]
    if k1:
        fig, ax = plt.subplots(figsize=(min(18.0, max(7.0, 0.22 * len(k1) * len(labels) + 2)),
                                        5.0))
        width = 0.8 / max(1, len(labels))
        for j, lab in enumerate(labels):
            xs, ys = [], []
            for i, k in enumerate(k1):
                m = idx.get((k, "", 1, lab))
                if m and m.get("t_over_ts"):
                    xs.append(i + (j - (len(labels) - 1) / 2) * width)
                    ys.append(m["t_over_ts"])
            if xs:
                ax.bar(xs, ys, width=width, label=lab, color=colors[lab])
        ax.axhline(1.0, color="black", lw=0.8)
        ax.set_yscale("log")
        from matplotlib.ticker import FuncFormatter
        fmt = FuncFormatter(lambda v, _: f"{v:g}")
        ax.yaxis.set_major_formatter(fmt)
        ax.yaxis.set_minor_formatter(fmt)
        ax.tick_params(axis="y", which="both", labelsize=7)
        ax.set_xticks(range(len(k1)))
        ax.set_xticklabels(k1, rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("T1 / Ts (log scale)")
        ax.set_title("Single-worker overhead over the serial elision (lower is better)")
        ax.legend(fontsize=7, ncol=min(6, len(labels)), loc="upper center",
                  bbox_to_anchor=(0.5, -0.18))
        ax.grid(axis="y", alpha=0.3, which="both")
        fig.tight_layout()
        fig.savefig(out / "overhead.png", dpi=110)
        plt.close(fig)
        files.append(("T1/Ts per kernel and system", "overhead.png"))

    sc = [m for m in medians if m["variant"] and m.get("steal_cost_ns") is not None
          and m["status"] == STATUS_OK]
    if sc:
        fig, ax = plt.subplots(figsize=(max(5.0, 0.7 * len(sc)), 3.8))
        names = [f"{m['label']}\nP={m['workers']}" for m in sc]
        ax.bar(range(len(sc)), [m["steal_cost_ns"] / 1e3 for m in sc],
               color=[colors.get(m["label"], "grey") for m in sc])
        ax.set_xticks(range(len(sc)))
        ax.set_xticklabels(names, fontsize=7)
        ax.set_ylabel("µs per tree (= per steal at P=2)")
        ax.set_title("Steal cost (WOOL Table III methodology)")
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        fig.savefig(out / "steal_cost.png", dpi=110)
        plt.close(fig)
        files.append(("Steal cost per system", "steal_cost.png"))
    return files, ""


def report(drv, meta, medians, idx, plots, plot_note):
    a = drv.a
    L = []
    add = L.append
    labels = [c.label for c in drv.configs]
    non_serial = [l for l in labels if l != "serial"]
    weft_labels = [c.label for c in drv.configs if c.system == "weft"]
    dp = meta.get("default_policy") or "unknown"
    add(f"# weft benchmark results ({a.mode} mode)")
    add("")
    add(f"- Command: `{meta['command']}`")
    add(f"- Date: {meta['date']} (finished {meta['finished']})")
    mi = meta["machine"]
    add(f"- Machine: {mi['cpu_model']}, nproc = {mi['nproc']}"
        + (f", load average at start {mi['loadavg_at_start']}" if mi.get("loadavg_at_start") else "")
        + (f", host {mi['hostname']}" if mi.get("hostname") else "")
        + (f", git {mi['git']}" if mi.get("git") else ""))
    add(f"- Sizes: `--size {a.mode}`; workers {', '.join(map(str, a.worker_list))}; "
        f"{a.runs} run(s) per configuration, run round-robin over the configurations of one "
        f"kernel and worker count (A B C A B C ...); every figure is a median.")
    add(f"- Wall time of this run: {fmt_dur(meta['elapsed_s'])} "
        f"(estimated beforehand: {fmt_dur(meta['estimated_s'])}); {meta['runs_done']} runs.")
    if meta.get("interrupted"):
        add("- **Interrupted**: the tables hold what had run by then.")
    add(f"- weft's default policy (what `weft-bench-weft` runs without `--policy`) is "
        f"**{dp}**; its column is `weft:default`. Other weft columns are `weft:<policy>`.")
    add(f"- Ts is the median of the serial binary (`weft-bench-serial`, the serial elision) "
        f"in the same kernel and worker-count group. The environment variables "
        f"{', '.join(SCRUB_ENV)} are removed for the binaries.")
    for n in drv.notes:
        add(f"- Note: {n}")
    add("")

    bad = [r for r in drv.runs if r["status"] in (STATUS_WRONG, STATUS_FAILED)]
    if bad:
        add("## FAILURES")
        add("")
        add(f"**{len(bad)} run(s) were WRONG or FAILED; the driver exits non-zero.**")
        add("")
        seen = set()
        for r in bad:
            k = (r["label"], r["kernel"], r["variant"], r["workers"], r["status"])
            if k in seen:
                continue
            seen.add(k)
            n = sum(1 for x in bad if (x["label"], x["kernel"], x["variant"], x["workers"],
                                       x["status"]) == k)
            add(f"- **{r['status']}** {r['label']} {r['kernel']}"
                f"{' ' + r['variant'] if r['variant'] else ''} P={r['workers']} "
                f"({n} of {a.runs} runs): {r['reason']}  \n  `{r['command']}`")
        add("")

    kernels = list(a.kernel_list)

    def cell_ratio(m, key):
        s = cell_status(m)
        if s is not None:
            return s
        v = m.get(key)
        return f"{v:.2f}" if v is not None else "—"

    # T1/Ts
    add("## Single-worker overhead T1/Ts")
    add("")
    if 1 in a.worker_list:
        add("T1 = median time at 1 worker; Ts = median of the serial elision. 1.00 means no "
            "overhead; the SPEC's goal for fib is at most 2 (aim 1.5).")
        add("")
        rows = []
        for k in kernels:
            ts = ts_for(idx, k, 1)
            rows.append([k, fmt_time(ts)] + [cell_ratio(idx.get((k, "", 1, l)), "t_over_ts")
                                             for l in non_serial])
        add(md_table(["kernel", "Ts"] + non_serial, rows))
    else:
        add("Not measured: 1 is not among the worker counts.")
    add("")

    # speedups
    add("## Speedup over Ts")
    add("")
    add("Speedup = Ts / T_P (median times). Ideal is P.")
    add("")
    for w in a.worker_list:
        add(f"### {w} worker{'s' if w > 1 else ''}")
        add("")
        rows = [[k] + [cell_ratio(idx.get((k, "", w, l)), "speedup") for l in non_serial]
                for k in kernels]
        add(md_table(["kernel"] + non_serial, rows))
        add("")

    # median times
    add("## Median times")
    add("")
    for w in a.worker_list:
        add(f"### {w} worker{'s' if w > 1 else ''}")
        add("")
        rows = []
        for k in kernels:
            row = [k]
            for l in labels:
                m = idx.get((k, "", w, l))
                s = cell_status(m)
                row.append(s if s is not None else fmt_time(m["median_s"]))
            rows.append(row)
        add(md_table(["kernel"] + labels, rows))
        add("")

    # per-task overhead
    add("## Per-task overhead")
    add("")
    add("Overhead per task in ns = (T1 − Ts) / N_T, as WOOL Table II. **N_T (tasks) = `joins + "
        "loop_iterations`** from the weft counters of the weft:default run at 1 worker "
        "(median over its runs): every join and every loop iteration of the declarative "
        "program is one potential task. The same N_T is used for every system, because all "
        "systems run the same algorithm: for peers it is the overhead per *logical* task, "
        "whatever number of real tasks they create (an `omp for` or TBB's auto partitioner "
        "creates far fewer). Negative values mean faster than the serial elision (noise or "
        "code generation).")
    add("")
    if 1 in a.worker_list:
        rows = []
        for k in kernels:
            nt = tasks_for(idx, k)
            ts = ts_for(idx, k, 1)
            row = [k, fmt_num(nt) if nt is not None else "—"]
            for l in non_serial:
                m = idx.get((k, "", 1, l))
                s = cell_status(m)
                if s is not None:
                    row.append(s)
                elif nt and ts and m["median_s"] is not None:
                    row.append(f"{(m['median_s'] - ts) / nt * 1e9:.2f}")
                else:
                    row.append("—")
            rows.append(row)
        add(md_table(["kernel", "N_T"] + [f"{l} ns/task" for l in non_serial], rows))
    else:
        add("Not measured: 1 is not among the worker counts.")
    add("")

    # load balancing
    add("## Load balancing (weft counters, WOOL §II)")
    add("")
    add("As in WOOL Table I: task granularity **G_T = Ts / N_T** (serial work per task; N_T "
        "as above, from the run at 1 worker) and load-balancing granularity **G_L(P) = Ts / "
        "N_M** where N_M is the number of successful steals (`steals`, median over the runs "
        "of that policy at P workers). G_T says how fine the tasks are (the smaller, the more "
        "the per-task overhead matters); G_L says how much serial work there is per steal "
        "(the larger, the better the scheduler amortizes each steal: compare it with the "
        "steal cost below). WOOL gives cycles; here ns and µs. With 1 worker there are no "
        "steals.")
    add("")
    multi = [w for w in a.worker_list if w > 1]
    for wl in weft_labels:
        add(f"### {wl}" + (f" ({dp})" if wl == "weft:default" else ""))
        add("")
        hdr = ["kernel", "Ts", "N_T", "G_T (ns)"]
        for w in multi:
            hdr += [f"N_M (P={w})", f"G_L(P={w}) (µs)", f"promotions (P={w})"]
        rows = []
        for k in kernels:
            ts = ts_for(idx, k, 1) or ts_for(idx, k, multi[0] if multi else 1)
            nt = tasks_for(idx, k, wl)
            row = [k, fmt_time(ts), fmt_num(nt) if nt is not None else "—",
                   f"{ts / nt * 1e9:.3g}" if ts and nt else "—"]
            for w in multi:
                m = idx.get((k, "", w, wl))
                s = cell_status(m)
                sm = (m or {}).get("stats_median") or {}
                nm = sm.get("steals")
                if s is not None:
                    row += [s, s, s]
                    continue
                row += [fmt_num(nm), f"{ts / nm * 1e6:.3g}" if ts and nm else "—",
                        fmt_num(sm.get("promotions"))]
            rows.append(row)
        add(md_table(hdr, rows))
        add("")

    # default vs peers
    add("## weft default policy vs each peer")
    add("")
    peers = [c.label for c in drv.configs if c.system in PEERS]
    cmp_ws = [w for w in a.worker_list if w in (1, 2)] or a.worker_list[:2]
    add(f"weft:default is policy **{dp}**. Each cell is T_peer / T_weft (medians at the "
        f"same worker count): above 1 weft is faster, below 1 (bold) the peer is faster.")
    add("")
    hdr = ["kernel"] + [f"{p} P={w}" for p in peers for w in cmp_ws]
    rows = []
    slower = []
    for k in kernels:
        row = [k]
        losses = {}
        for p in peers:
            for w in cmp_ws:
                mw = idx.get((k, "", w, "weft:default"))
                mp = idx.get((k, "", w, p))
                s = cell_status(mp) or cell_status(mw)
                if s is not None:
                    row.append(s)
                    continue
                r = mp["median_s"] / mw["median_s"]
                row.append(f"**{r:.2f}**" if r < 1 else f"{r:.2f}")
                if r < 1:
                    losses.setdefault(w, []).append((p, mp["median_s"], mw["median_s"]))
        rows.append(row)
        if losses:
            parts = []
            for w in sorted(losses):
                tw = losses[w][0][2]
                peers_txt = " and ".join(f"{p} ({fmt_time(t)}; weft takes {tw / t:.2f}× as long)"
                                         for p, t, _ in losses[w])
                parts.append(f"at {w} worker{'s' if w > 1 else ''} weft ({dp}, "
                             f"{fmt_time(tw)}) is slower than {peers_txt}")
            slower.append(f"- **{k}**: " + "; ".join(parts) + ".")
    if peers:
        add(md_table(hdr, rows))
        add("")
        if slower:
            add(f"Kernels where weft's default policy is slower than a peer at "
                f"{' or '.join(map(str, cmp_ws))} worker(s):")
            add("")
            L.extend(slower)
        else:
            add(f"weft's default policy ({dp}) is at least as fast as every peer measured, "
                f"on every kernel measured, at {' and '.join(map(str, cmp_ws))} worker(s).")
    else:
        add("No peer was run.")
    add("")

    # steal cost
    add("## Steal cost (WOOL Table III)")
    add("")
    sc = [m for m in medians if m["variant"]]
    if not sc:
        add("Not run (`--steal-cost none`, or stress not among the kernels).")
    else:
        v = sc[0]["variant"]
        leaf_it, reps = parse_steal(v.split(":", 1)[1]) or (None, None)
        add(f"`weft-bench-<system> --kernel stress --variant {v} --workers P`: R = {reps} "
            f"repetitions of a balanced join tree of height log2(P) whose leaves each run the "
            f"stress leaf loop L = {leaf_it} times (see bench/KERNELS.md, Variants). "
            f"Cost per tree = (T − T_leaf) / R, T the time of the R trees on P workers, T_leaf "
            f"the time of R single leaves run serially in the same process; at P = 2 a tree "
            f"needs exactly one steal and one join with the thief, so the cost is the cost of "
            f"one steal (WOOL's column \"2\": 2 200 cycles for Wool, 5 800 for TBB, 4 830 for "
            f"OpenMP). A cost close to T_leaf means the thief did not get the second leaf in "
            f"time and the owner ran both.")
        add("")
        rows = []
        for m in sorted(sc, key=lambda m: (m["workers"], labels.index(m["label"])
                                           if m["label"] in labels else 99)):
            s = cell_status(m)
            spt = m.get("steals_per_tree")
            if s is not None:
                rows.append([m["label"], m["workers"], s, "—", "—", m.get("reason", "")[:120]])
                continue
            cost = m.get("steal_cost_ns")
            note = ""
            if cost is not None and m.get("leaf_ns") and cost > 0.8 * m["leaf_ns"]:
                note = "≈ T_leaf: probably no steal"
            rows.append([m["label"], m["workers"],
                         f"{cost:,.0f}" if cost is not None else "—",
                         f"{m['leaf_ns']:,.0f}" if m.get("leaf_ns") else "—",
                         f"{spt:.2f}" if spt is not None else "—", note])
        add(md_table(["system", "P", "ns per tree (per steal at P=2)", "T_leaf (ns)",
                      "weft steals per tree", "note"], rows))
    add("")

    # plots
    add("## Plots")
    add("")
    if plots:
        for title, f in plots:
            add(f"### {title}")
            add("")
            add(f"![{title}]({f})")
            add("")
    else:
        add(plot_note or "No plot (nothing to draw).")
        add("")

    # missing
    add("## Missing columns")
    add("")
    miss = []
    for s, reason in drv.missing_bin.items():
        miss.append(f"- **{s}** (all kernels): {reason}")
    seen = set()
    for m in medians:
        if m["status"] in (STATUS_MISSING, STATUS_TIMEOUT) and m["system"] not in drv.missing_bin:
            k = (m["label"], m["kernel"], m["variant"], m["status"])
            if k in seen:
                continue
            seen.add(k)
            miss.append(f"- **{m['label']}** {m['kernel']}"
                        f"{' ' + m['variant'] if m['variant'] else ''}: "
                        f"{'timeout: ' if m['status'] == STATUS_TIMEOUT else ''}{m['reason']}")
    L.extend(miss or ["None: every configuration ran."])
    add("")
    add("## Data")
    add("")
    add("Every single run (command, exit code, time, checksum, weft counters) and the medians: "
        "[results.json](results.json); one row per configuration: [results.csv](results.csv). "
        f"Reproduce with `{meta['command']}`.")
    add("")
    return "\n".join(L)


# --------------------------------------------------------------------------------------

def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse_args(argv)
    started = datetime.datetime.now().astimezone()
    drv = Driver(a)
    drv.discover()
    pl = drv.plan()
    prior = load_prior(a.out, a.mode)
    budget = MODES[a.mode]["budget"]

    def estimate():
        todo = drv.count_runs(pl)
        per_kernel = {}
        for k, v, n in todo:
            per_kernel[k] = per_kernel.get(k, 0.0) + guess_for(a.mode, k, v, prior) * n
        return sum(n for _, _, n in todo), sum(per_kernel.values()), per_kernel

    total, est, per_kernel = estimate()
    # quick mode must stay within its budget: unless --policies was given, drop the extra
    # weft policies (last first) while the estimate exceeds 80 % of the budget
    while budget and a.policies is None and est > 0.8 * budget:
        extra = [c for c in drv.configs if c.system == "weft" and c.policy != "default"]
        if not extra:
            break
        drop = extra[-1]
        drv.configs.remove(drop)
        a.policy_list.remove(drop.policy)
        pl = drv.plan()
        total, est, per_kernel = estimate()
        drv.notes.append(f"weft:{drop.policy} was left out to keep {a.mode} mode within "
                         f"{fmt_dur(budget)} (pass --policies to choose)")
        print(f"note: {drv.notes[-1]}", file=sys.stderr)
    ncfg = len(drv.configs)
    print(f"weft bench: mode {a.mode}, {len(a.kernel_list)} kernels x workers "
          f"{','.join(map(str, a.worker_list))} x {ncfg} configurations "
          f"({', '.join(c.label for c in drv.configs)}) x {a.runs} runs"
          + (f" + steal cost {steal_variant(a.steal)} at P={','.join(map(str, a.steal_workers))}"
             if a.steal else ""), file=sys.stderr)
    for s, reason in drv.missing_bin.items():
        print(f"missing: {s}: {reason}", file=sys.stderr)
    top = sorted(per_kernel.items(), key=lambda kv: -kv[1])[:3]
    print(f"{total} runs, estimated {fmt_dur(est)}"
          + (" (from the previous run's timings)" if prior else " (from built-in guesses)")
          + (f"; most of it: {', '.join(f'{k} {fmt_dur(t)}' for k, t in top)}" if top else ""),
          file=sys.stderr)
    if budget and est > budget:
        print(f"warning: the estimate exceeds the {fmt_dur(budget)} budget of {a.mode} mode; "
              f"narrow --kernels, --policies or --systems", file=sys.stderr)
    if a.dry_run:
        for g in pl.groups:
            cf = [c.label for c in g["configs"] if drv.available(c, g["kernel"], g["variant"])]
            print(f"  {g['kernel']}{' ' + g['variant'] if g['variant'] else ''} "
                  f"P={g['workers']}: {' '.join(cf) or '(nothing)'}", file=sys.stderr)
        return 0

    progress = Progress(total, a.mode, prior)
    t0 = time.monotonic()
    try:
        drv.execute(pl, progress)
    except KeyboardInterrupt:
        drv.interrupted = True
        progress.say("interrupted: writing what has run so far")
    progress.finish()
    elapsed = time.monotonic() - t0

    medians, idx = analyse(drv)
    default_policy = drv.default_policy
    for m in medians:
        if m["label"] == "weft:default" and m.get("reported_policy"):
            default_policy = m["reported_policy"]
            break
    cmd_path = os.path.relpath(Path(__file__).resolve(), Path.cwd())
    meta = {"command": shlex.join(["python3", cmd_path] + list(argv)),
            "argv": list(argv), "cwd": str(Path.cwd()),
            "date": started.isoformat(timespec="seconds"),
            "finished": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "mode": a.mode, "runs_per_config": a.runs, "workers": a.worker_list,
            "kernels": a.kernel_list, "systems": a.system_list, "policies": a.policy_list,
            "steal_cost_variant": steal_variant(a.steal) if a.steal else None,
            "default_policy": default_policy, "machine": machine_info(),
            "elapsed_s": round(elapsed, 3), "estimated_s": round(est, 3),
            "runs_done": len(drv.runs), "interrupted": drv.interrupted,
            "binaries": {s: str(p) for s, p in drv.binaries.items()},
            "missing_binaries": drv.missing_bin}
    out = a.out
    out.mkdir(parents=True, exist_ok=True)
    write_json(drv, meta, medians, out / "results.json")
    write_csv(medians, out / "results.csv")
    plots, note = ([], "plots not drawn (--no-plots)") if a.no_plots else \
        draw_plots(drv, medians, idx, out)
    if note:
        print(note, file=sys.stderr)
    text = report(drv, meta, medians, idx, plots, note)
    (out / "latest.md").write_text(text)

    bad = [r for r in drv.runs if r["status"] in (STATUS_WRONG, STATUS_FAILED)]
    ok = [r for r in drv.runs if r["status"] == STATUS_OK]
    print(f"report: {out / 'latest.md'} ({len(drv.runs)} runs in {fmt_dur(elapsed)})",
          file=sys.stderr)
    if drv.interrupted:
        return 130
    if bad:
        print(f"*** {len(bad)} run(s) WRONG or FAILED:", file=sys.stderr)
        for r in bad[:20]:
            print(f"***   {r['status']} {r['label']} {r['kernel']} P={r['workers']}: "
                  f"{r['reason']}", file=sys.stderr)
        return 1
    if not ok:
        print("no run succeeded (no binary found, or every configuration missing)",
              file=sys.stderr)
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main())
