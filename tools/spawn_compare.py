#!/usr/bin/env python3
"""A spawn against a join, in time: one of Lace's programs written with spawns (a weft::scope, a typed
weft::spawn) and with joins.

    tools/spawn_compare.py [--program dfs|fib] [--ports LABEL=BUILD/tools/weft-lace-ports ...]
                           [--runs 7] [--workers 1,2] [--policy lazy-bf] [--spawn-forms scope,spawn] ARGS...

      dfs (default): ARGS = DEPTH WIDTH GRAIN REPS
      fib:           ARGS = N

Issue 9, item 5: a program written with spawns and sync should cost at most 1.1x the same program
written with joins.  weft-lace-ports (tools/lace_ports.cpp) runs each program as its serial
elision, with joins and with spawns:
  - dfs walks a balanced tree of the given depth and width whose leaves run GRAIN iterations of
    integer work, REPS times: `-f join` (a node's children as a balanced tree of joins), `-f scope`
    (one scope a node, one spawn a child, one sync) and `-f spawn` (Lace's order with typed
    handles: the children spawned first to last, synced last to first);
  - fib(N) with no cutoff (Lace's fib-lace.c): `-f value` and `-f ref` (one join a node, the
    branches capturing by value with a noexcept first branch, or by reference), `-f scope`
    (one scope a node, one spawn, the other call, one sync) and `-f spawn` (a typed handle, the
    other call, its sync).
--spawn-forms picks the spawn forms (a binary built before `-f spawn` existed: --spawn-forms scope).
Every configuration of every binary runs once per round, round after round, so that a noisy shared
machine slows all alike; several binaries (a build before a change and one after, say) are
compared in the same run.  Prints the medians of "Time:" and, per binary and worker count, each
form over the elision and each spawn form over each join form.  Exits 3 when two runs disagree on the
result.
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys

from checked_run import TIME_LINE, checked, count, counts, given_twice, stop

RESULT = re.compile(r"^(?:dfs|fib)\(.*= (-?\d+)$", re.M)
PROGRAMS = {  # program: (number of ARGS, the join forms)
    "dfs": (4, ("join",)),
    "fib": (1, ("value", "ref")),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ports", action="append", default=[], help="LABEL=PATH of a weft-lace-ports binary (repeatable)")
    ap.add_argument("--runs", type=count, default=7)
    ap.add_argument("--workers", type=counts, default="1,2")
    ap.add_argument("--policy", default="lazy-bf")
    ap.add_argument("--program", choices=sorted(PROGRAMS), default="dfs")
    ap.add_argument("--spawn-forms", default="scope,spawn", help="comma-separated: scope, spawn")
    ap.add_argument("args", nargs="+", metavar="ARG", help="dfs: DEPTH WIDTH GRAIN REPS; fib: N")
    a = ap.parse_args()
    nargs, join_forms = PROGRAMS[a.program]
    if len(a.args) != nargs:
        ap.error(f"{a.program} takes {nargs} argument(s), got {len(a.args)}")
    spawn_forms = tuple(a.spawn_forms.split(","))
    if not spawn_forms or any(f not in ("scope", "spawn") for f in spawn_forms):
        ap.error(f"--spawn-forms: scope and/or spawn, got {a.spawn_forms!r}")
    forms = (*join_forms, *spawn_forms)
    ports = [p.split("=", 1) if "=" in p else (p, p) for p in (a.ports or ["weft=build/tools/weft-lace-ports"])]
    labels = [label for label, _ in ports]
    dups = given_twice(labels)
    if dups:  # their times would be merged into one list: every row of that label the same wrong medians
        ap.error(f"--ports: label(s) given twice: {', '.join(dups)}")
    workers = a.workers
    configs = []  # (label, argv)
    for label, path in ports:
        configs.append(((label, "elision", 1), [path, a.program, *a.args, "-p", "elision"]))
        for w in workers:
            for form in forms:
                configs.append(((label, form, w), [path, a.program, *a.args, "-w", str(w), "-p", a.policy, "-f", form]))
    times: dict = {c[0]: [] for c in configs}
    results = set()
    for r in range(a.runs):
        for key, argv in configs:
            out = checked(argv)
            t, result = TIME_LINE.search(out), RESULT.search(out)
            if not t or not result:
                stop(argv, "no 'Time:' line or no result line in its output", out)
            times[key].append(float(t.group(1)))
            results.add(result.group(1))
        print(f"round {r + 1}/{a.runs}", file=sys.stderr)
    if len(results) != 1:
        print(f"the runs disagree on the result: {sorted(results)}", file=sys.stderr)
        return 3
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{a.program} {' '.join(a.args)}, policy {a.policy}, medians of {a.runs}")
    cols = [f"{'binary':<10} {'P':>2} {'elision':>9}"] + [f"{f:>9}" for f in forms]
    cols += [f"{f + '/Ts':>9}" for f in forms] + [f"{s + '/' + f:>12}" for s in spawn_forms for f in join_forms]
    print(" ".join(cols))
    for label, _ in ports:
        ts = med[(label, "elision", 1)]
        for w in workers:
            t = {f: med[(label, f, w)] for f in forms}
            row = [f"{label:<10} {w:>2} {ts:9.4f}"] + [f"{t[f]:9.4f}" for f in forms]
            row += [f"{t[f] / ts:9.2f}" for f in forms] + [f"{t[s] / t[f]:12.2f}" for s in spawn_forms for f in join_forms]
            print(" ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
