#!/usr/bin/env python3
"""Lace's fib and knapsack against their weft ports (tools/lace_ports.cpp), side by side.

    tools/lace_compare.py --lace LACE_BUILD --ports build/tools/weft-lace-ports
                          [--runs 5] [--workers 1,2] [--policies default,lazy-bf,wool,heartbeat]
                          [--forms value,ref,spawn] fib N | knapsack FILE

LACE_BUILD is a build folder of trolando/lace made with its own CMake outside this repository
(the commands: docs/results/fine-grained.md).  Every configuration (the serial elision of the
port; Lace's sequential fib-seq for fib; Lace and each weft policy at each worker count) runs
once per round, round after round (A B C A B C ...), so that a noisy shared machine slows all
alike; each program reports the time of the computation alone ("Time: <s>", as Lace's do).
Prints the medians, T/Ts against the port's serial elision, and each weft time over Lace's at
the same worker count.  --forms picks how the ports write their branches (weft-lace-ports -f:
`value`, Lace's own semantics — arguments copied, a first branch that cannot throw — or `ref`,
`[&]` captures; for fib also `spawn`, Lace's SPAWN/CALL/SYNC as a typed weft::spawn handle); each
form is a configuration of its own (label weft-POLICY:FORM).  Exits 3 when
two programs disagree on the result.
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from checked_run import TIME_LINE, checked, count, counts, given_twice, stop  # noqa: E402

RESULT = re.compile(r"(-?\d+)\s*$")  # the result: the last number of the first line


def configurations(a):
    """(label, workers, argv) of every configuration, the serial elision first."""
    lace, ports, prog, arg = Path(a.lace) / "benchmarks", a.ports, a.program, a.input
    lace_bin = {"fib": "fib-lace", "knapsack": "knapsack-lace"}[prog]
    out = [("elision", 1, [ports, prog, arg, "-p", "elision"])]
    if prog == "fib":
        out.append(("lace-seq", 1, [str(lace / "fib-seq"), arg]))
    for w in a.workers:
        out.append(("lace", w, [str(lace / lace_bin), "-w", str(w), arg]))
        for p in a.policies:
            policy = [] if p == "default" else ["-p", p]
            for f in a.forms:
                out.append((f"weft-{p}:{f}", w, [ports, prog, arg, "-w", str(w), "-f", f] + policy))
    return out


def run_once(argv):
    """(seconds, result) of one run; a missing binary, a failed run or output without a 'Time:'
    line or a result stops the driver with the command, its status and its stderr/stdout."""
    out = checked(argv)
    t = TIME_LINE.search(out)
    result = RESULT.search(out.splitlines()[0]) if out.strip() else None
    if not t or not result:
        stop(argv, "no 'Time:' line or no result on its first line", out)
    return float(t.group(1)), result.group(1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lace", required=True, help="trolando/lace build folder")
    p.add_argument("--ports", required=True, help="the weft-lace-ports binary")
    p.add_argument("--runs", type=count, default=5)
    p.add_argument("--workers", type=counts, default="1,2")
    p.add_argument("--policies", default="default,lazy-bf,wool,heartbeat")
    p.add_argument("--forms", default="value", help="value, ref, spawn (fib only), comma-separated")
    p.add_argument("program", choices=["fib", "knapsack"])
    p.add_argument("input", help="fib: N; knapsack: an input file in Lace's format")
    a = p.parse_args()
    a.policies = a.policies.split(",")
    a.forms = a.forms.split(",")
    for what, xs in (("policy", a.policies), ("form", a.forms)):
        if given_twice(xs):  # one label's times would be two configurations' merged
            p.error(f"--{what}s: a policy or form given twice ({','.join(xs)})")
    for f in a.forms:
        if f not in ("value", "ref", "spawn") or (f == "spawn" and a.program != "fib"):
            p.error(f"--forms: '{f}' is not a form of {a.program} (value, ref; fib also spawn)")
    confs = configurations(a)
    times = {c[:2]: [] for c in confs}
    results = set()
    for _ in range(a.runs):
        for label, w, argv in confs:
            t, result = run_once(argv)
            times[(label, w)].append(t)
            results.add(result)
    if len(results) != 1:
        print(f"results differ: {sorted(results)}", file=sys.stderr)
        return 3
    med = {k: statistics.median(v) for k, v in times.items()}
    ts = med[("elision", 1)]
    print(f"{a.program} {a.input}: result {results.pop()}; {a.runs} rounds, medians; "
          f"Ts = the port's serial elision")
    print(f"{'program':<24}{'P':>3}{'time_s':>10}{'T/Ts':>8}{'/Lace':>8}")
    for (label, w), t in med.items():
        lace = med.get(("lace", w)) if label.startswith("weft-") else None
        rel = f"{t / lace:8.2f}" if lace else f"{'':8}"
        print(f"{label:<24}{w:>3}{t:>10.4f}{t / ts:>8.2f}{rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
