#!/usr/bin/env python3
"""weft-sim's calibration table (docs/results/sim.md, "Calibration"): medians of the real runs
(sim/calibrate_real.sh's kernels.jsonl) beside weft-sim's runs of the recorded DAGs (JSON of
`weft-sim --json`), per kernel and policy: T1/Ts, T1/T2, steals and promotions per run at P = 2,
and the real runtime's idle time per failed steal attempt (the `probe` cost).

usage: sim/calibration_table.py kernels.jsonl KERNEL=sim.json [KERNEL=sim.json ...]
"""
import json
import statistics
import sys
from collections import defaultdict


def real_medians(path):
    runs = defaultdict(list)
    for line in open(path):
        r = json.loads(line)
        runs[(r["kernel"], r["system"], r["policy"], r["workers"])].append(r)
    med = {}
    for key, rs in runs.items():
        m = {"time": statistics.median(r["time_s"] for r in rs), "n": len(rs)}
        for f in ("steals", "promotions", "steal_attempts", "idle_ns"):
            if "stats" in rs[0]:
                m[f] = statistics.median(r["stats"][f] for r in rs)
        med[key] = m
    return med


def sim_runs(path):
    out = {}
    for r in json.load(open(path))["runs"]:
        out[(r["policy"], r["P"])] = r
    return out


def main():
    real = real_medians(sys.argv[1])
    print("| kernel | policy | T1/Ts real | T1/Ts sim | T1/T2 real | T1/T2 sim | steals P=2 real | sim "
          "| promotions P=1 real | sim | P=2 real | sim | idle ns per failed attempt, real |")
    print("|" + "---|" * 13)
    for spec in sys.argv[2:]:
        kernel, path = spec.split("=", 1)
        sim = sim_runs(path)
        ts = real[(kernel, "serial", "", 1)]["time"]
        for (policy, p), r1 in sorted(sim.items()):
            if p != 1 or (kernel, "weft", policy, 1) not in real:
                continue
            r2 = sim[(policy, 2)]
            a, b = real[(kernel, "weft", policy, 1)], real[(kernel, "weft", policy, 2)]
            sim_ts = r1["dag_work"]
            fails = b["steal_attempts"] - b["steals"]
            per_fail = b["idle_ns"] / fails if fails > 0 else float("nan")
            print(f"| {kernel} | {policy} | {a['time'] / ts:.2f} | {r1['makespan'] / sim_ts:.2f} "
                  f"| {a['time'] / b['time']:.2f} | {r1['makespan'] / r2['makespan']:.2f} "
                  f"| {b['steals']:.0f} | {r2['thefts']} | {a['promotions']:.0f} | {r1['promotions']} "
                  f"| {b['promotions']:.0f} | {r2['promotions']} | {per_fail:.0f} |")


if __name__ == "__main__":
    main()
