#!/usr/bin/env python3
# Issue 9 item 2's small-work table as the project measures figures: weft-small-work run ROUNDS times
# per kernel, the kernels alternated round by round, and per cell the median over the invocations
# of T2/T1 and T4/T1 (each invocation is itself the median of its 9 rounds), with the largest single
# invocation in brackets (docs/results/small-work.md, "Stop 61").
#   python3 docs/results/small_work_medians.py BIN ROUNDS [POLICIES]
# e.g. python3 docs/results/small_work_medians.py build/tools/weft-small-work 15 lazy-bf,lazy-df,lazy-df2,heartbeat,wool,ws-ap
import os
import statistics
import subprocess
import sys

KERNELS = [("fib", "12"), ("loop", "64"), ("loop", "640")]
if len(sys.argv) not in (3, 4) or not sys.argv[2].isdigit() or int(sys.argv[2]) < 1:
    sys.exit("usage: python3 docs/results/small_work_medians.py BIN ROUNDS [POLICIES] "
             "(e.g. build/tools/weft-small-work 15 lazy-bf,wool; ROUNDS >= 1)")
binary, rounds = sys.argv[1], int(sys.argv[2])
policies = (sys.argv[3] if len(sys.argv) == 4 else "lazy-bf,lazy-df,lazy-df2,heartbeat,wool,ws-ap").split(",")
if not os.access(binary, os.X_OK):
    sys.exit(f"small_work_medians.py: no executable {binary} (build the target weft-small-work: -DWEFT_BUILD_TOOLS=ON)")

cells = {}  # (policy, kernel) -> [(T2/T1, T4/T1)] over invocations
for r in range(rounds):
    for kind, n in KERNELS:
        run = subprocess.run([binary, kind, n, "2000", "9", *policies], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"small_work_medians.py: {binary} {kind} {n} 2000 9 {' '.join(policies)} exited "
                     f"{run.returncode}: {run.stderr.strip()}")
        for line in run.stdout.splitlines():
            f = line.split()
            if len(f) >= 6 and f[0] in policies:
                cells.setdefault((f[0], f"{kind}({n})"), []).append((float(f[4]), float(f[5])))
    print(f"round {r + 1} of {rounds} done", file=sys.stderr)

names = [f"{kind}({n})" for kind, n in KERNELS]
print("| policy | " + " | ".join(f"{k}: T2/T1, T4/T1 (median; max)" for k in names) + " |")
print("|---|" + "---|" * len(names))
for p in policies:
    row = []
    for k in names:
        v = cells[(p, k)]
        t2 = [x[0] for x in v]
        t4 = [x[1] for x in v]
        row.append(f"{statistics.median(t2):.2f}, {statistics.median(t4):.2f} ({max(t2):.2f}, {max(t4):.2f})")
    print(f"| {p} | " + " | ".join(row) + " |")
print(f"\n{rounds} invocations per kernel")
