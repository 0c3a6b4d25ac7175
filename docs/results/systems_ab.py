#!/usr/bin/env python3
"""Benchmark binaries of any systems (and builds) side by side on some kernels: every configuration
runs once per round, round after round (A B C A B C ...), each process the median of its --reps 3
runs; prints per kernel the median over rounds of each configuration and its speed relative to the
first configuration (the baseline, normally a serial binary at 1 worker).

    docs/results/systems_ab.py --kernels bfs --size quick --rounds 5 \\
        serial=build/bench/weft-bench-serial:1 weft=build/bench/weft-bench-weft:1 weft=build/bench/weft-bench-weft:2 ...

A configuration is LABEL=BINARY:WORKERS; label and worker count name it, so two builds of one system
need two labels (weft-before=..., weft-after=...).
Used for docs/results/loops.md, "bfs at 2 workers" (the same kernel from two builds) and the full-size
bfs/tsp/quickhull table.  A binary that fails (its check: exit 3; a typo in the kernel: exit 2) stops
the script with its command, exit status and stderr (tools/checked_run.py), and so do two
configurations that print different checksums for one kernel (exit 3).

--stat min: each configuration's fastest run over all rounds and reps instead (with --reps 9, say).
On a shared host whose memory speed swings by 1.5x within minutes, the medians of two runs of the
same binary differed by 15 % (docs/results/loops.md, "A loop's head"); the minimum, what the code
does when nothing else interferes, moved by a few percent.
"""
from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from checked_run import checked, stop  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", required=True, help="comma-separated")
    ap.add_argument("--size", default="quick")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=3, help="runs per process")
    ap.add_argument("--stat", choices=["median", "min"], default="median",
                    help="median: the median over rounds of each process's median; min: the fastest run")
    ap.add_argument("configs", nargs="+", help="LABEL=BINARY:WORKERS, the first the baseline")
    a = ap.parse_args()
    if a.rounds < 1 or a.reps < 1:
        ap.error(f"--rounds and --reps must be at least 1 (got {a.rounds}, {a.reps})")
    confs = []
    for c in a.configs:
        label, _, rest = c.partition("=")
        binary, _, workers = rest.rpartition(":")
        if not label or not binary or not workers.isdigit():
            ap.error(f"'{c}' is not LABEL=BINARY:WORKERS")
        if any(l == label and w == workers for l, _, w in confs):
            ap.error(f"two configurations named {label} at {workers} workers")
        confs.append((label, binary, workers))
    times = collections.defaultdict(list)
    checksums = {}  # kernel -> (checksum, the configuration that printed it first)
    for _ in range(a.rounds):
        for k in a.kernels.split(","):
            for label, binary, workers in confs:
                argv = [binary, "--kernel", k, "--size", a.size, "--workers", workers, "--reps", str(a.reps)]
                out = checked(argv)
                try:
                    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
                    runs = [j["time_s"] for j in lines]
                except (json.JSONDecodeError, KeyError, TypeError):
                    lines = runs = []
                if len(runs) != a.reps:
                    stop(argv, f"printed {len(runs)} benchmark JSON lines for --reps {a.reps}", out)
                first = checksums.setdefault(k, (lines[0].get("checksum"), f"{label} P={workers}"))
                if lines[0].get("checksum") != first[0]:
                    stop(argv, f"checksum {lines[0].get('checksum')} differs from {first[1]}'s "
                               f"{first[0]}: the configurations did not compute the same thing",
                         status=3)
                if a.stat == "min":
                    times[(k, label, workers)].extend(runs)
                else:
                    times[(k, label, workers)].append(statistics.median(runs))
    stat = min if a.stat == "min" else statistics.median
    what = f"fastest of {a.rounds} x {a.reps} runs" if a.stat == "min" else f"medians of {a.rounds} rounds"
    print(f"size {a.size}, {what}; speed = baseline time / time")
    for k in a.kernels.split(","):
        base = stat(times[(k, confs[0][0], confs[0][2])])
        for label, _, workers in confs:
            m = stat(times[(k, label, workers)])
            print(f"{k:10} {label:14} P={workers:<3} {m:.4f} s  speed {base / m:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
