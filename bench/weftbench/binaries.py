"""The benchmark binaries: finding them, running one, reading its answer (bench/KERNELS.md).

Besides timed runs, the driver asks the binaries what they know instead of keeping its own
lists: `BIN --kernel list` (every binary: one kernel name per line) and
`weft-bench-weft --policy list` (one implemented weft policy per line).
"""
from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from . import records as R

REPO = Path(__file__).resolve().parent.parent.parent

SYSTEMS = ["serial", "weft", "tbb", "omp-gcc", "omp-clang", "rayon", "chili"]
PEERS = ["tbb", "omp-gcc", "omp-clang", "rayon", "chili"]
RUST_SYSTEMS = {"rayon", "chili"}
# Column variants: OpenMP's other schedule of the flat loops is one more column per OpenMP
# system, passing `--variant dynamic` (KERNELS.md, "Variants"), in the groups of the kernels
# that `BIN --kernel list --variant dynamic` names
COLUMN_VARIANTS = {"omp-gcc": ["dynamic"], "omp-clang": ["dynamic"]}

# Environment variables that would change what a binary does behind the driver's back: every
# prefix below is removed from the binaries' environment (the driver sets none of them itself;
# what it means a binary to do it passes as arguments).  Removed rather than refused: a shell
# that exports WEFT_WORK_SPAN=ns (README's own example) or OMP_THREAD_LIMIT for other work
# should not cost a 10-minute run, and the figures are of the defaults the report names.  Every
# variable removed is named in the report's header (scrubbed_env()), so nothing is silent.
#   WEFT_*   weft's settings (policy, workers, heartbeat, quota, steal back-off, fiber stacks,
#            work-span instrumentation, tracing, ...: every one changes what weft runs or times)
#   OMP_*, GOMP_*, KMP_*   OpenMP's (thread count and limit, dynamic teams, wait policy, binding)
#   RAYON_*  Rayon's thread count;  TBB_*  oneTBB's
SCRUB_PREFIXES = ("WEFT_", "OMP_", "GOMP_", "KMP_", "RAYON_", "TBB_")
# named in the report even when absent (the ones a user most often has set)
SCRUB_ENV = ["WEFT_*", "OMP_*", "GOMP_*", "KMP_*", "RAYON_*", "TBB_*"]

LIST_TIMEOUT_S = 30


@dataclass
class Completed:
    """What one process did: rc is None when it was killed at its time limit."""
    rc: Optional[int]
    stdout: str
    stderr: str
    wall_s: float


def find_binary(system, opts):
    """(path, None) or (None, reason). opts: bin_map, bin_dir, build/clang/rust dirs."""
    name = f"weft-bench-{system}"
    if system in opts.bin_map:
        cands = [opts.bin_map[system]]
    elif opts.bin_dir:
        cands = [Path(opts.bin_dir) / name]
    else:
        if system in RUST_SYSTEMS:
            d = Path(opts.rust_dir) if opts.rust_dir else REPO / "bench/rust/target/release"
        elif system == "omp-clang":
            d = Path(opts.clang_build_dir) if opts.clang_build_dir else REPO / "build-clang"
        else:
            d = Path(opts.build_dir) if opts.build_dir else REPO / "build"
        cands = [d / name, d / "bench" / name]
        if d.is_dir():
            cands += sorted(p for p in d.rglob(name) if "CMakeFiles" not in p.parts)
    for c in cands:
        if c.is_file() and os.access(c, os.X_OK):
            return c.resolve(), None
    where = ", ".join(str(c) for c in cands[:3])
    return None, f"binary {name} not found (looked at {where})"


def scrubbed_env(environ=None):
    """The names of the variables child_env() removes from this environment, sorted."""
    environ = os.environ if environ is None else environ
    return sorted(k for k in environ if k.startswith(SCRUB_PREFIXES))


def child_env():
    env = dict(os.environ)
    for k in scrubbed_env(env):
        del env[k]
    return env


def _text(x):
    return x.decode(errors="replace") if isinstance(x, bytes) else (x or "")


def run_binary(path, args, limit_s) -> Completed:
    """Runs one binary, killing it after limit_s wall seconds."""
    t0 = time.monotonic()
    try:
        p = subprocess.run([str(path)] + args, capture_output=True, text=True,
                           timeout=limit_s, env=child_env(), stdin=subprocess.DEVNULL)
        return Completed(p.returncode, p.stdout, p.stderr, time.monotonic() - t0)
    except subprocess.TimeoutExpired as e:
        return Completed(None, _text(e.stdout), _text(e.stderr), time.monotonic() - t0)
    except OSError as e:
        return Completed(-1, "", f"cannot run {path}: {e}", time.monotonic() - t0)


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


def json_lines(stdout):
    """Every JSON object line of stdout, in order (lines that do not parse are skipped)."""
    out = []
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return out


def classify(done: Completed, limit_s):
    """(status, parsed JSON line or None, reason) of one timed run."""
    j = last_json_line(done.stdout)
    rc, stderr = done.rc, done.stderr
    if rc is None:
        return R.TIMEOUT, j, f"timed out after {limit_s:g} s"
    if rc == 2:
        first = stderr.strip().splitlines()[0] if stderr.strip() else \
            "exit 2 (bad arguments) without a message"
        return R.MISSING, j, tail(first, 300)
    if rc == 3:
        return R.WRONG, j, "wrong checksum (exit 3): " + tail(stderr, 300)
    if rc != 0:
        return R.FAILED, j, f"exit code {rc}: " + tail(stderr, 300)
    return check_line(j)


def check_line(j):
    """(status, j, reason) of one JSON line of a process that exited 0."""
    if j is None:
        return R.FAILED, None, "exit 0 but no JSON line on stdout"
    if j.get("ok") is False:
        return R.WRONG, j, "exit 0 but \"ok\": false"
    if not isinstance(j.get("time_s"), (int, float)):
        return R.FAILED, j, "JSON line without a numeric time_s"
    return R.OK, j, ""


def classify_reps(done: Completed, limit_s, reps):
    """[(status, JSON line or None, reason)] of a process asked for `reps` timed runs: one per
    JSON line when it exited 0 with exactly `reps` lines, else one for the whole process."""
    status, j, reason = classify(done, limit_s)
    if status != R.OK:
        return [(status, j, reason)]
    lines = json_lines(done.stdout)
    if len(lines) != reps:
        return [(R.FAILED, j, f"printed {len(lines)} JSON lines for --reps {reps}")]
    return [check_line(x) for x in lines]


def read_name_list(path, flag):
    """`path <flag> list` as a list of names (one a line), or (None, why not)."""
    done = run_binary(path, [flag, "list"], LIST_TIMEOUT_S)
    names = [x.strip() for x in done.stdout.splitlines() if x.strip()]
    if done.rc == 0 and names and all(" " not in n and not n.startswith("{") for n in names):
        return names, None
    what = "timed out" if done.rc is None else f"exit {done.rc}"
    msg = tail(done.stderr.strip().splitlines()[0], 200) if done.stderr.strip() else \
        ("printed nothing" if not names else "printed something other than names")
    return None, f"`{Path(path).name} {flag} list` failed ({what}: {msg})"


def read_variant_kernels(path, variant):
    """`path --kernel list --variant V`: the kernels that have variant V (maybe none), or
    (None, why not)."""
    done = run_binary(path, ["--kernel", "list", "--variant", variant], LIST_TIMEOUT_S)
    names = [x.strip() for x in done.stdout.splitlines() if x.strip()]
    if done.rc == 0 and all(" " not in n and not n.startswith("{") for n in names):
        return names, None
    what = "timed out" if done.rc is None else f"exit {done.rc}"
    msg = tail(done.stderr.strip().splitlines()[0], 200) if done.stderr.strip() else \
        "printed something other than names"
    return None, f"`{Path(path).name} --kernel list --variant {variant}` failed ({what}: {msg})"


def probe_default_policy(path, kernel):
    """The policy weft runs without --policy: its JSON line's "policy" at the test size."""
    done = run_binary(path, ["--kernel", kernel, "--size", "test", "--workers", "1"], 60)
    j = last_json_line(done.stdout)
    if done.rc in (0, 3) and j and j.get("policy"):
        return j["policy"]
    return None
