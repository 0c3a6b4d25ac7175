#!/usr/bin/env python3
"""Whole programs side by side in paired rounds: each round runs every program once (in the order
given), each program prints "Time: <seconds>" (Lace's benchmarks and tools/lace_ports.cpp do); the
ratio to the first program is taken within each round, then the median over rounds.  On a shared
host whose speed drifts between rounds, a within-round ratio moves less than a ratio of medians.

    tools/paired_rounds.py ROUNDS LABEL=COMMAND [LABEL=COMMAND ...]

e.g.  tools/paired_rounds.py 21 lace="…/knapsack-lace -w 1 $K" weft="build/tools/weft-lace-ports knapsack $K -w 1"
"""
import re
import statistics
import subprocess
import sys

from checked_run import FLOAT, given_twice

# "Time: SECONDS" anywhere in the output, the seconds a float as printf writes it ("[0-9.eE+-]+" also
# took "-" or "e", and float() of it was a traceback)
TIME = re.compile(rf"Time:\s*({FLOAT})(?![0-9A-Za-z.+-])")


def main() -> int:
    if len(sys.argv) < 3 or not sys.argv[1].isdigit() or any("=" not in a for a in sys.argv[2:]):
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    if rounds < 1:
        sys.exit("paired_rounds.py: ROUNDS must be at least 1\n" + __doc__)
    programs = [a.split("=", 1) for a in sys.argv[2:]]
    labels = [label for label, _ in programs]
    dups = given_twice(labels)
    if dups:  # their times would be merged into one list: a wrong median and ratio
        sys.exit(f"paired_rounds.py: label(s) given twice: {', '.join(dups)}")
    times = {label: [] for label, _ in programs}
    for _ in range(rounds):
        for label, command in programs:
            r = subprocess.run(command, shell=True, capture_output=True, text=True, check=False)
            m = TIME.search(r.stdout)
            if r.returncode != 0 or not m:
                sys.exit(f"{command}: exit {r.returncode}, no 'Time:' line\n{r.stdout}{r.stderr}")
            t = float(m.group(1))
            if t <= 0 and label == programs[0][0]:  # every ratio of the round divides by it
                sys.exit(f"{command}: a time of 0 ({m.group(0)}): no ratio to it; give the programs more work")
            times[label].append(t)
    base = programs[0][0]
    for label, _ in programs:
        ratios = [t / b for t, b in zip(times[label], times[base])]
        print(f"{label:14s} median {statistics.median(times[label]):.4f} s  min {min(times[label]):.4f} s  "
              f"ratio to {base}: median {statistics.median(ratios):.3f} [{min(ratios):.2f}-{max(ratios):.2f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
