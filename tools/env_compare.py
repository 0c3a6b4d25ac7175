#!/usr/bin/env python3
"""The suite's kernels under two or more values of one WEFT_* setting, or two or more builds, side by side.

    tools/env_compare.py --var WEFT_STEAL_BACKOFF_US --values 0,256 [--kernels a,b|all]
    tools/env_compare.py --bins before=/tmp/old/build/bench/weft-bench-weft,after=build/bench/weft-bench-weft [...]
                         [--policies lazy-bf,wool] [--workers 2|1,2] [--rounds 3] [--size quick]
                         [--bin build/bench/weft-bench-weft]

With --bins the "values" are the labelled benchmark binaries (a build before a change and one
after) and no variable is set.  For every round, kernel, policy and value (in that order, so that a
noisy shared machine slows the values alike), runs `BIN --kernel K --size SIZE --workers P --policy POLICY --reps 3` with the
variable set to the value, and keeps the median of the three repetitions' times and steals.  Prints,
per kernel and policy, the median over rounds of each value's time and steals, and the last value's
time over the first's.  With several worker counts (--workers 1,2) it prints that table for each,
then each value's self-speedup: the time at the first count over the time at each other count.
The benchmark binaries check every result (exit 3 otherwise); a failing run stops this script.
Used for the steal backoff's effect on the suite (docs/results/small-work.md) and the heartbeat's
deliveries (docs/results/heartbeat-delivery.md).

The binary's --policy and --workers win over WEFT_POLICY and WEFT_WORKERS: with --var WEFT_POLICY
no --policy is passed (the variable picks the policy; --policies is then refused), and --var
WEFT_WORKERS is refused (compare worker counts with --workers 1,2), as is a --var beginning with WEFT
that is no setting of include/weft/detail/env_settings.hpp (a misspelling the binary would ignore).  A binary that is not there or
a run that fails stops the script with the command, its exit status and its stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys

from checked_run import checked, count, field, given_twice, stop


def weft_settings() -> list:
    """The variables the runtime reads: include/weft/detail/env_settings.hpp, their one list (empty
    where this script runs outside its checkout)."""
    header = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include", "weft", "detail",
                          "env_settings.hpp")
    try:
        with open(header) as f:
            text = f.read()
    except OSError:
        return []
    return re.findall(r'"(WEFT_[A-Z_]+)"', text.split("env_settings[] = {", 1)[-1].split("};", 1)[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--var", help="the environment variable, e.g. WEFT_STEAL_BACKOFF_US")
    ap.add_argument("--values", help="comma-separated values, the first the baseline")
    ap.add_argument("--bins", help="instead of --var/--values: LABEL=PATH,... benchmark binaries, the first the baseline")
    ap.add_argument("--kernels", default="all")
    ap.add_argument("--policies", help="comma-separated (default lazy-bf; not with --var WEFT_POLICY)")
    ap.add_argument("--workers", default="2", help="a worker count, or several: 1,2")
    ap.add_argument("--rounds", type=count, default=3)
    ap.add_argument("--size", default="quick")
    ap.add_argument("--bin", default="build/bench/weft-bench-weft")
    a = ap.parse_args()
    if (a.bins is None) == (a.var is None or a.values is None):
        ap.error("give either --var and --values, or --bins")
    # The benchmark binary's --policy overrides WEFT_POLICY, its --workers (always given) WEFT_WORKERS:
    # a table of such a variable's values would be one configuration against itself.
    # A WEFT* name that is no setting (a misspelling) the binary ignores, saying so on the stderr that
    # checked() drops on success: every column would be one configuration (stop 51's config hunt).
    settings = weft_settings()
    if a.var is not None and a.var.upper().startswith("WEFT") and settings and a.var not in settings:
        ap.error(f"--var {a.var} is not a weft setting (the binary would ignore it); settings: {', '.join(settings)}")
    if a.var == "WEFT_WORKERS":
        ap.error("--var WEFT_WORKERS: the binary's --workers (always given) overrides it; "
                 "compare worker counts with --workers 1,2")
    if a.var == "WEFT_POLICY" and a.policies is not None:
        ap.error("--var WEFT_POLICY with --policies: the binary's --policy would override the variable; "
                 "give one or the other")
    bins: dict = {}
    if a.bins:
        for item in a.bins.split(","):
            label, _, path = item.partition("=")
            if not label or not path:  # else the binary '' ran ("cannot run it: Permission denied")
                ap.error(f"--bins needs LABEL=PATH items, got '{item}'")
            if label in bins:  # the dict kept the last: a table of one binary against itself
                ap.error(f"--bins: label(s) given twice: {label}")
            bins[label] = path
        values = list(bins)
        a.var = "binary"
        a.bin = bins[values[0]]
    else:
        values = a.values.split(",")
        dups = given_twice(values)
        if dups:  # their runs would be merged into one column, shown twice
            ap.error(f"--values: value(s) given twice: {', '.join(dups)}")
    if a.kernels == "all":
        kernels = checked([a.bin, "--kernel", "list"]).split()
    else:
        kernels = a.kernels.split(",")
    # With --var WEFT_POLICY the variable picks the policy: no --policy, one column labelled so.
    policies = ["(WEFT_POLICY)"] if a.var == "WEFT_POLICY" else (a.policies or "lazy-bf").split(",")
    counts = a.workers.split(",")
    res: dict = {}
    for r in range(a.rounds):
        for k in kernels:
            for p in policies:
                for w in counts:
                    for v in values:
                        env = dict(os.environ) if bins else dict(os.environ, **{a.var: v})
                        argv = [bins.get(v, a.bin), "--kernel", k, "--size", a.size, "--workers", w]
                        argv += [] if a.var == "WEFT_POLICY" else ["--policy", p]
                        out = checked(argv + ["--reps", "3"], env)
                        rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
                        if not rows:
                            stop(argv, "no JSON line in its output", out)
                        res.setdefault((k, p, w, v), []).append(
                            (statistics.median(field(argv, x, "time_s") for x in rows),
                             statistics.median(field(argv, x, "stats", "steals") for x in rows)))
        print(f"round {r + 1}/{a.rounds}", file=sys.stderr)

    def t(k: str, p: str, w: str, v: str) -> float:
        return statistics.median(x[0] for x in res[(k, p, w, v)])

    for w in counts:
        print(f"{a.var}: {', '.join(values)}; {w} workers, size {a.size}, medians of {a.rounds} rounds")
        print("kernel policy " + " ".join(f"t({v}) steals({v})" for v in values) + f" t({values[-1]})/t({values[0]})")
        for k in kernels:
            for p in policies:
                ts = [t(k, p, w, v) for v in values]
                st = [statistics.median(x[1] for x in res[(k, p, w, v)]) for v in values]
                print(k, p, " ".join(f"{ti:.4f} {si:.0f}" for ti, si in zip(ts, st)), f"{ts[-1] / ts[0]:.3f}")
    if len(counts) > 1:
        base = counts[0]
        print(f"self-speedup: t({base} workers) / t(P workers), each value")
        print("kernel policy " + " ".join(f"P={w}:{v}" for w in counts[1:] for v in values))
        for k in kernels:
            for p in policies:
                print(k, p, " ".join(f"{t(k, p, base, v) / t(k, p, w, v):.2f}" for w in counts[1:] for v in values))
    return 0


if __name__ == "__main__":
    sys.exit(main())
