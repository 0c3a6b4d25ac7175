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
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--var", help="the environment variable, e.g. WEFT_STEAL_BACKOFF_US")
    ap.add_argument("--values", help="comma-separated values, the first the baseline")
    ap.add_argument("--bins", help="instead of --var/--values: LABEL=PATH,... benchmark binaries, the first the baseline")
    ap.add_argument("--kernels", default="all")
    ap.add_argument("--policies", default="lazy-bf")
    ap.add_argument("--workers", default="2", help="a worker count, or several: 1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size", default="quick")
    ap.add_argument("--bin", default="build/bench/weft-bench-weft")
    a = ap.parse_args()
    if (a.bins is None) == (a.var is None or a.values is None):
        ap.error("give either --var and --values, or --bins")
    bins: dict = {}
    if a.bins:
        for item in a.bins.split(","):
            label, _, path = item.partition("=")
            bins[label] = path
        values = list(bins)
        a.var = "binary"
        a.bin = bins[values[0]]
    else:
        values = a.values.split(",")
    if a.kernels == "all":
        listing = subprocess.run([a.bin, "--kernel", "list"], capture_output=True, text=True, check=True).stdout
        kernels = listing.split()
    else:
        kernels = a.kernels.split(",")
    policies = a.policies.split(",")
    counts = a.workers.split(",")
    res: dict = {}
    for r in range(a.rounds):
        for k in kernels:
            for p in policies:
                for w in counts:
                    for v in values:
                        env = dict(os.environ) if bins else dict(os.environ, **{a.var: v})
                        out = subprocess.run([bins.get(v, a.bin), "--kernel", k, "--size", a.size, "--workers", w, "--policy", p,
                                              "--reps", "3"], env=env, capture_output=True, text=True, check=True).stdout
                        rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
                        res.setdefault((k, p, w, v), []).append((statistics.median(x["time_s"] for x in rows),
                                                                 statistics.median(x["stats"]["steals"] for x in rows)))
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
