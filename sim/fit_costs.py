#!/usr/bin/env python3
"""Fits weft-sim's single-worker costs (the `calibrated` preset, sim/src/costs.cpp) to real runs:
T1/Ts of fib(N) (tools/weft-overhead ratio's output) and of nqueens (the kernels.jsonl of
sim/calibrate_real.sh), against weft-sim's P = 1 counts on the same programs (fib:N:W and the
recorded nqueens DAG).  Units: 0.1 ns.  Policies whose runtime code paths are the same at P = 1
are pooled (the median of their T1/Ts medians): the lazy group (lazy-df, lazy-df2, lazy-bf,
heartbeat: a latent descriptor and a poll per join), wool (its task-stack descriptor) and the
eager group (ws), and ws-ap (ws's join with its own loop pieces).  `check` is held at CHECK (a load of the
own deque's size) and `pop` at POP.

  lazy, wool: fib's overhead per join gives `join`; nqueens and uts-geo (no joins) give `iter`
      and `loop` (per iteration, per loop entered: 164 K loops of 11 in nqueens, most of uts-geo's
      10 M nodes entering an empty loop);
  eager: `join`, `loop` and `iter` are the lazy group's (the same descriptor and loop code);
      fib's overhead per join less join and pop gives `promote`; nqueens' per split (every loop
      is split to single iterations) less loop, iter, promote and pop gives `split`;
  ws-ap: the eager group's join, promote and split; `loop` and `iter` from its nqueens and
      uts-geo as the lazy group's (its pieces read the clock for the partitioner's deferral),
      after the few splits of pieces that outlast the deferral (Costs::ap_defer).

usage: sim/fit_costs.py WEFT_SIM FIB_RATIO_TXT KERNELS_JSONL DAG_DIR [FIB_N]
       (DAG_DIR: nqueens.dag and uts-geo.dag recorded by weft-bench-record --size quick)
"""
import json
import re
import statistics
import subprocess
import sys
import tempfile

POLICIES = ["ws", "ws-ap", "wool", "lazy-df", "lazy-df2", "lazy-bf", "heartbeat"]
GROUPS = {"lazy": ["lazy-df", "lazy-df2", "lazy-bf", "heartbeat"], "wool": ["wool"], "eager": ["ws"], "ws-ap": ["ws-ap"]}
POP = 60    # 6 ns: the owner's pop of its own promoted item (not separable from promote at P = 1)
CHECK = 10  # 1 ns: one poll


def fib_calls(n):
    a, b = 1, 1  # calls(0) = calls(1) = 1; calls(n) = 1 + calls(n-1) + calls(n-2)
    for _ in range(n - 1):
        a, b = b, 1 + a + b
    return b if n >= 1 else 1


def real_fib(path):
    text = open(path).read()
    ts = float(re.search(r"^serial-elision\s+(\S+)", text, re.M).group(1))
    ratios = {p: float(re.search(rf"^{re.escape(p)}@1\s+\S+\s+(\S+)", text, re.M).group(1)) for p in POLICIES}
    return ts, ratios


def real_kernel(path, kernel):
    runs = {}
    for line in open(path):
        r = json.loads(line)
        if r["kernel"] == kernel and r["workers"] == 1:
            runs.setdefault(r["policy"], []).append(r["time_s"])
    ts = statistics.median(runs[""])
    return {p: statistics.median(runs[p]) / ts for p in POLICIES}


def fit_nonnegative(a, b, c, d, rq, ru):
    """loop and iter costs >= 0 with a*lp + b*it = rq and c*lp + d*it = ru, or, when the exact
    solution has a negative cost (a kernel faster than its serial elision: nqueens' T1/Ts is
    below 1 on a quiet machine), the least-squares fit with that cost held at 0."""
    det = a * d - b * c
    lp, it = (rq * d - b * ru) / det, (a * ru - c * rq) / det
    if lp >= 0 and it >= 0:
        return lp, it
    candidates = [(max(0.0, (a * rq + c * ru) / (a * a + c * c)), 0.0),
                  (0.0, max(0.0, (b * rq + d * ru) / (b * b + d * d)))]
    return min(candidates, key=lambda x: (a * x[0] + b * x[1] - rq) ** 2 + (c * x[0] + d * x[1] - ru) ** 2)


def sim_counts(weft_sim, dag):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([weft_sim, "--dag", dag, "--policy", ",".join(POLICIES), "--P", "1",
                        "--costs", "calibrated", "--quiet", "--json", out.name],
                       check=True, stderr=subprocess.DEVNULL)
        return {r["policy"]: r for r in json.load(open(out.name))["runs"]}


def main():
    weft_sim, fib_txt, kernels, dag_dir = sys.argv[1:5]
    n = int(sys.argv[5]) if len(sys.argv) > 5 else 32
    ts_fib, fib_ratio = real_fib(fib_txt)
    w = max(1, round(ts_fib * 1e10 / fib_calls(n)))
    nq_ratio = real_kernel(kernels, "nqueens")
    ug_ratio = real_kernel(kernels, "uts-geo")
    fib = sim_counts(weft_sim, f"fib:{n}:{w}")
    nq = sim_counts(weft_sim, f"file:{dag_dir}/nqueens.dag")
    ug = sim_counts(weft_sim, f"file:{dag_dir}/uts-geo.dag")
    print(f"fib({n}): Ts = {ts_fib * 1e3:.2f} ms, {fib_calls(n)} calls: W = {w} (0.1 ns)")
    print("| group | fib T1/Ts (per policy) | nqueens T1/Ts | uts-geo T1/Ts | join | loop | iter | promote | split |")
    print("|---|---|---|---|---|---|---|---|---|")
    fit = {}
    for g in ("lazy", "eager", "ws-ap", "wool"):  # lazy first: eager uses its join, loop and iter; ws-ap eager's
        ps = GROUPS[g]
        rf_ratio = statistics.median(fib_ratio[p] for p in ps)
        rq_ratio = statistics.median(nq_ratio[p] for p in ps)
        ru_ratio = statistics.median(ug_ratio[p] for p in ps)
        f, q, u = fib[ps[0]], nq[ps[0]], ug[ps[0]]
        rf = (rf_ratio - 1) * f["dag_work"]
        rq = (rq_ratio - 1) * q["dag_work"] - q["polls"] * CHECK
        ru = (ru_ratio - 1) * u["dag_work"] - u["polls"] * CHECK
        split = 0.0
        if g == "eager":
            join, lp, it = fit["lazy"][0], fit["lazy"][1], fit["lazy"][2]
            promote = max(0.0, rf / f["joins"] - join - POP)
            split = max(0.0, (rq - q["loops"] * lp - q["iterations"] * it) / q["promotions"] - promote - POP)
        elif g == "ws-ap":
            # ws's joins, promotions and splits; its loop pieces arm the partitioner's clock and
            # read it after every chunk, so `loop` and `iter` are its own, fitted as the lazy
            # group's after the splits that the deferral still lets long pieces make at P = 1.
            join, promote, split = fit["eager"][0], fit["eager"][3], fit["eager"][4]
            rq -= q["loop_splits"] * (promote + split + POP)
            ru -= u["loop_splits"] * (promote + split + POP)
            lp, it = fit_nonnegative(q["loops"], q["iterations"], u["loops"], u["iterations"], rq, ru)
        else:
            promote = fit.get("eager", (0, 0, 0, 0, 0))[3]
            # rq = loops_q * lp + iters_q * it; ru = loops_u * lp + iters_u * it
            a, b, c, d = q["loops"], q["iterations"], u["loops"], u["iterations"]
            lp, it = fit_nonnegative(a, b, c, d, rq, ru)
            join = max(0.0, (rf - f["polls"] * CHECK) / f["joins"])
        fit[g] = (join, lp, it, promote, split)
        per = lambda d: ", ".join(f"{d[p]:.2f}" for p in ps)
        print(f"| {g} | {rf_ratio:.2f} ({per(fib_ratio)}) | {rq_ratio:.2f} ({per(nq_ratio)}) "
              f"| {ru_ratio:.2f} ({per(ug_ratio)}) | {join:.0f} | {lp:.0f} | {it:.0f} | {promote:.0f} | {split:.0f} |")
    print(f"(check = {CHECK}, pop = {POP}; lazy and wool promote = the eager group's; ws-ap's join, promote, split too)")


if __name__ == "__main__":
    main()
