#!/usr/bin/env python3
# 2-worker self-speedups of two builds of weft-bench-weft side by side (docs/results/small-work.md, "Stop 50, then"):
# ARGS: KERNELS POLICIES ROUNDS, e.g. fib,nqueens lazy-bf,lazy-df 2; OLD and NEW binaries from the environment.
import json, statistics, subprocess, sys
import os
builds = {"old": os.environ.get("OLD", "build-old/bench/weft-bench-weft"), "new": os.environ.get("NEW", "build/bench/weft-bench-weft")}
# Bad arguments and a missing binary are a usage line, not a traceback (stop 51's commands hunt).
if len(sys.argv) != 4 or not sys.argv[3].isdigit() or int(sys.argv[3]) < 1:
    sys.exit("usage: [OLD=BIN] [NEW=BIN] python3 docs/results/self_speedup_ab.py KERNELS POLICIES ROUNDS"
             " (e.g. fib,nqueens lazy-bf,lazy-df 2; ROUNDS >= 1)")
for b, path in builds.items():
    if not os.access(path, os.X_OK):
        sys.exit(f"self_speedup_ab.py: no {path} for {b.upper()} (set {b.upper()}=.../bench/weft-bench-weft)")
kernels = sys.argv[1].split(",")
policies = sys.argv[2].split(",")
rounds = int(sys.argv[3])
t = {}
for r in range(rounds):
    for k in kernels:
        for p in policies:
            for b, path in builds.items():
                for w in (1, 2):
                    out = subprocess.run([path, "--kernel", k, "--size", "quick", "--workers", str(w), "--policy", p, "--reps", "3"],
                                         capture_output=True, text=True, check=True).stdout
                    times = [json.loads(l)["time_s"] for l in out.splitlines() if l.startswith("{")]
                    t.setdefault((k, p, b, w), []).append(statistics.median(times))
for k in kernels:
    for p in policies:
        row = []
        for b in builds:
            t1 = statistics.median(t[(k, p, b, 1)]); t2 = statistics.median(t[(k, p, b, 2)])
            row.append(f"{b} T1 {t1:.4f} T2 {t2:.4f} T1/T2 {t1/t2:.2f}")
        print(f"{k:9} {p:9} " + " | ".join(row))
