#!/usr/bin/env python3
"""A spawn against a join, in time: Lace's dfs written with a weft::scope and with joins, side by side.

    tools/spawn_compare.py [--ports LABEL=BUILD/tools/weft-lace-ports ...] [--runs 7]
                           [--workers 1,2] [--policy lazy-bf] DEPTH WIDTH GRAIN REPS

Issue 9, item 5: a program written with spawns and sync should cost at most 1.1x the same program
written with joins.  weft-lace-ports dfs (tools/lace_ports.cpp) walks a balanced tree of the given
depth and width whose leaves run GRAIN iterations of integer work, REPS times, in three forms: the
serial elision, `-f join` (a node's children as a balanced tree of joins) and `-f scope` (one scope a
node, one spawn a child, one sync).  Every configuration of every binary runs once per round, round
after round, so that a noisy shared machine slows all alike; several binaries (a build before a
change and one after, say) are compared in the same run.  Prints the medians of "Time:" and, per
binary and worker count, join and scope over the elision and scope over join.  Exits 3 when two
runs disagree on the result.
"""
from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys

TIME = re.compile(r"^Time:\s*([0-9.]+)\s*$", re.M)
RESULT = re.compile(r"^dfs\(.*= (-?\d+)$", re.M)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ports", action="append", default=[], help="LABEL=PATH of a weft-lace-ports binary (repeatable)")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--policy", default="lazy-bf")
    ap.add_argument("args", nargs=4, metavar="N", help="DEPTH WIDTH GRAIN REPS")
    a = ap.parse_args()
    ports = [p.split("=", 1) if "=" in p else (p, p) for p in (a.ports or ["weft=build/tools/weft-lace-ports"])]
    workers = [int(w) for w in a.workers.split(",")]
    configs = []  # (label, argv)
    for label, path in ports:
        configs.append(((label, "elision", 1), [path, "dfs", *a.args, "-p", "elision"]))
        for w in workers:
            for form in ("join", "scope"):
                configs.append(((label, form, w), [path, "dfs", *a.args, "-w", str(w), "-p", a.policy, "-f", form]))
    times: dict = {c[0]: [] for c in configs}
    results = set()
    for r in range(a.runs):
        for key, argv in configs:
            out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
            times[key].append(float(TIME.search(out).group(1)))
            results.add(RESULT.search(out).group(1))
        print(f"round {r + 1}/{a.runs}", file=sys.stderr)
    if len(results) != 1:
        print(f"the runs disagree on the result: {sorted(results)}", file=sys.stderr)
        return 3
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"dfs depth {a.args[0]} width {a.args[1]} grain {a.args[2]} x {a.args[3]}, policy {a.policy}, "
          f"medians of {a.runs}")
    print(f"{'binary':<10} {'P':>2} {'elision':>9} {'join':>9} {'scope':>9} {'join/Ts':>8} {'scope/Ts':>9} {'scope/join':>11}")
    for label, _ in ports:
        ts = med[(label, "elision", 1)]
        for w in workers:
            j, s = med[(label, "join", w)], med[(label, "scope", w)]
            print(f"{label:<10} {w:>2} {ts:9.4f} {j:9.4f} {s:9.4f} {j / ts:8.2f} {s / ts:9.2f} {s / j:11.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
