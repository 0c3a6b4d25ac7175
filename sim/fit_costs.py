#!/usr/bin/env python3
"""Fits weft-sim's single-worker costs (the `calibrated` preset, sim/src/costs.cpp) to real runs:
T1/Ts of fib(N) (tools/weft-overhead ratio's output) and of nqueens, uts-geo and uts-bin (the
kernels.jsonl of sim/calibrate_real.sh), against weft-sim's P = 1 counts on the same programs
(fib:N:W and the recorded DAGs).  Units: 0.1 ns.  Policies whose runtime code paths are the same at P = 1
are pooled (the median of their T1/Ts medians): the lazy group (lazy-df, lazy-df2, lazy-bf,
heartbeat: a latent descriptor and a poll per join), wool (its task-stack descriptor) and the
eager group (ws), and ws-ap (ws's join with its own loop pieces).  `check` is held at CHECK (a load of the
own deque's size) and `pop` at POP, or at half of ws's overhead per join beyond `join` where that is
less than 2·POP (a machine whose deque push and pop cost less than the VM's where POP was chosen:
the two are not separable at P = 1).

  lazy, wool: fib's overhead per join gives `join`; nqueens, uts-geo and uts-bin (no joins) give
      `loop` and `iter` (per non-empty loop, per iteration): the pair with the smallest largest
      relative error of the three T1/Ts (fit_minimax: no pair fits all three exactly);
  eager: `join`, `loop` and `iter` are the lazy group's (the same descriptor and loop code);
      fib's overhead per join less join and pop gives `promote`; nqueens' per split (every loop
      is split to single iterations) less loop, iter, promote and pop gives `split`;
  ws-ap: the eager group's join, promote and split; `loop` and `iter` from its three kernels as
      the lazy group's (its pieces read the clock for the partitioner's deferral),
      after the few splits of pieces that outlast the deferral (Costs::ap_defer).

usage: sim/fit_costs.py WEFT_SIM FIB_RATIO_TXT KERNELS_JSONL DAG_DIR [FIB_N]
                        [--steal-cost STEAL_COST_TXT] [--out COSTS_FILE] [--fib-dag FILE]
       (DAG_DIR: nqueens.dag, uts-geo.dag and uts-bin.dag recorded by weft-bench-record --size quick;
       STEAL_COST_TXT: tools/weft-overhead steal's output, whose median over the deque and Wool
       policies gives `steal`; COSTS_FILE: the fit as weft-sim's `--costs file:COSTS_FILE`; FILE: the
       fib:N:W the fit used, W the measured serial time per call, which the check must simulate)
"""
import argparse
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


def read(path, what):
    """A file's text; one line naming it when it cannot be read (a traceback before, stop 52)."""
    try:
        with open(path) as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        sys.exit(f"fit_costs: cannot read {path} ({what}): {e.__class__.__name__}: {e}")


def real_fib(path):
    text = read(path, "tools/weft-overhead ratio's output")

    def number(pattern, name):
        m = re.search(pattern, text, re.M)
        try:
            return float(m.group(1))
        except (AttributeError, ValueError):  # no such line, or no number in it
            sys.exit(f"fit_costs: {path}: no {name} line with a number (not tools/weft-overhead ratio's output?)")
    ts = number(r"^serial-elision\s+(\S+)", "'serial-elision'")
    ratios = {p: number(rf"^{re.escape(p)}@1\s+\S+\s+(\S+)", f"'{p}@1'") for p in POLICIES}
    return ts, ratios


def real_kernel(path, kernel):
    runs = {}
    for n, line in enumerate(read(path, "sim/calibrate_real.sh's kernels.jsonl").splitlines(), 1):
        try:
            r = json.loads(line)
            if r["kernel"] == kernel and r["workers"] == 1:
                runs.setdefault(r["policy"], []).append(float(r["time_s"]))
        except (ValueError, KeyError, TypeError) as e:
            sys.exit(f"fit_costs: {path} line {n}: not a run of sim/calibrate_real.sh's kernels.jsonl "
                     f"({e.__class__.__name__}: {e})")
    missing = [p or "serial" for p in [""] + POLICIES if p not in runs]
    if missing:
        sys.exit(f"fit_costs: {path}: no 1-worker run of {kernel} for {', '.join(missing)}")
    ts = statistics.median(runs[""])
    return {p: statistics.median(runs[p]) / ts for p in POLICIES}


def fit_minimax(rows):
    """loop and iter costs >= 0 minimising the largest relative error of the modelled T1/Ts
    (1 + (fixed + loops·loop + iterations·iter) / work) against the real one over the rows
    (loops, iterations, fixed, work, real T1/Ts): the check's tolerance is relative, and no one
    pair fits every kernel exactly (per loop entered, uts-geo's real overhead is 3x nqueens').
    A grid, coarse then fine: the error is piecewise linear, convex in the pair."""
    def worst(lp, it):
        return max(abs((1 + (fx + lo * lp + n * it) / w) / r - 1) for lo, n, fx, w, r in rows)
    best = min(((lp, it) for lp in range(0, 4001, 20) for it in range(0, 401, 4)), key=lambda x: worst(*x))
    lo_lp, lo_it = max(0, best[0] - 20), max(0, best[1] - 4)
    return min(((lp, it) for lp in range(lo_lp, best[0] + 21) for it in range(lo_it, best[1] + 5)),
               key=lambda x: worst(*x))


def sim_counts(weft_sim, dag):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        try:
            r = subprocess.run([weft_sim, "--dag", dag, "--policy", ",".join(POLICIES), "--P", "1",
                                "--costs", "calibrated", "--quiet", "--json", out.name],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        except OSError as e:
            sys.exit(f"fit_costs: cannot run {weft_sim}: {e}")
        if r.returncode != 0:  # weft-sim's own line says what it refused (was a CalledProcessError)
            last = r.stderr.strip().splitlines()[-1:] or [f"exit status {r.returncode}"]
            sys.exit(f"fit_costs: {weft_sim} --dag {dag} failed: {last[0]}")
        return {r["policy"]: r for r in json.load(open(out.name))["runs"]}


def real_steal(path):
    """The median cost of a steal (0.1 ns) over the policies whose thieves take frames (heartbeat's
    row measures how often a beat came in time, not a steal).  weft-overhead steal prints n/a for a
    policy whose repetitions were stolen less than 90 % of the time (its T_rep - T_leaf is then
    mostly inline leaves, not a steal): such rows are left out, and where every row is n/a (a busy
    machine, few runs) there is no measured cost: None, said on stderr, and the fit keeps the
    calibrated preset's steal."""
    costs, unmeasured = [], []
    for line in open(path):
        f = line.split()
        if len(f) == 5 and f[0] in POLICIES and f[0] != "heartbeat":
            if f[3] == "n/a":
                unmeasured.append(f"{f[0]} ({f[4]} stolen)")
            else:
                costs.append(float(f[3]))
    if costs:
        return round(statistics.median(costs) * 10)
    if not unmeasured:
        sys.exit(f"fit_costs: no steal costs in {path}")
    print(f"fit_costs: no steal cost measured in {path}: every row is n/a (under 90 % of the repetitions "
          f"stolen: {', '.join(unmeasured)}); the fit keeps the calibrated preset's steal cost "
          f"(rerun tools/weft-overhead steal with more runs, or on a quieter machine)", file=sys.stderr)
    return None


def write_costs(path, fit, shared, steal, source):
    """The fit as weft-sim's cost file: the costs every policy shares (a poll, a steal, and ws's
    promote, split and pop, as the calibrated preset shares them), then each policy's join, loop
    and iter."""
    # weft-sim knows its files by this first line, and refuses one that does not end with a newline
    # (cut inside its last number; sim/src/costs.cpp, costs_from_file).
    lines = [f"# weft-sim costs (0.1 ns) fitted by sim/fit_costs.py to {source}",
             f"# use: weft-sim --costs file:{path} ...  (the calibrated preset, these values over it)",
             f"check={CHECK}"] + [f"{name}={shared[name]:.0f}" for name in ("promote", "split", "pop")]
    if steal is not None:
        lines.append(f"steal={steal}")
    else:  # weft-sim then takes the calibrated preset's: said here, as no steal= line shows it
        lines.append("# steal: not measured (tools/weft-overhead steal printed n/a), the calibrated preset's")
    for g in ("lazy", "eager", "ws-ap", "wool"):
        join, lp, it = fit[g]
        for p in GROUPS[g]:
            lines += [f"{p}.join={join:.0f}", f"{p}.loop={lp:.0f}", f"{p}.iter={it:.0f}"]
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("weft_sim")
    ap.add_argument("fib_ratio")
    ap.add_argument("kernels")
    ap.add_argument("dag_dir")
    def fib_n(text):  # fib:N takes N up to 90; a negative one reached weft-sim as a traceback
        try:
            n = int(text)
        except ValueError:
            n = -1
        if not 1 <= n <= 90:
            raise argparse.ArgumentTypeError(f"'{text}' is not an integer in 1..90")
        return n
    ap.add_argument("fib_n", nargs="?", type=fib_n, default=32)
    ap.add_argument("--steal-cost", help="tools/weft-overhead steal's output")
    ap.add_argument("--out", help="write the fit as a weft-sim cost file")
    ap.add_argument("--fib-dag", help="write the fib DAG the fit used (fib:N:W, W from the measured Ts), "
                                      "for sim/calibrate_sim.sh's check")
    args = ap.parse_args()
    weft_sim, fib_txt, kernels, dag_dir, n = args.weft_sim, args.fib_ratio, args.kernels, args.dag_dir, args.fib_n
    ts_fib, fib_ratio = real_fib(fib_txt)
    w = max(1, round(ts_fib * 1e10 / fib_calls(n)))
    loop_kernels = ("nqueens", "uts-geo", "uts-bin")
    ratios = {k: real_kernel(kernels, k) for k in loop_kernels}
    fib_dag = f"fib:{n}:{w}"
    fib = sim_counts(weft_sim, fib_dag)
    if args.fib_dag:
        with open(args.fib_dag, "w") as out:
            out.write(fib_dag + "\n")
    counts = {k: sim_counts(weft_sim, f"file:{dag_dir}/{k}.dag") for k in loop_kernels}
    print(f"fib({n}): Ts = {ts_fib * 1e3:.2f} ms, {fib_calls(n)} calls: W = {w} (0.1 ns)")
    print("| group | fib T1/Ts (per policy) | nqueens T1/Ts | uts-geo T1/Ts | uts-bin T1/Ts | join | loop | iter | promote | split |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    fit = {}     # per group: (join, loop, iter)
    shared = {}  # ws's promote, split and pop, which every policy shares (as the calibrated preset)
    for g in ("lazy", "eager", "ws-ap", "wool"):  # lazy first: eager uses its join, loop and iter; ws-ap eager's
        ps = GROUPS[g]
        f = fib[ps[0]]
        rf = (statistics.median(fib_ratio[p] for p in ps) - 1) * f["dag_work"]
        real = {k: statistics.median(ratios[k][p] for p in ps) for k in loop_kernels}
        # (loops, iterations, fixed overhead, work, real T1/Ts) per kernel: the loop fit's rows
        rows = lambda fixed: [(counts[k][ps[0]]["loops"], counts[k][ps[0]]["iterations"], fixed(counts[k][ps[0]]),
                               counts[k][ps[0]]["dag_work"], real[k]) for k in loop_kernels]
        if g == "eager":
            join, lp, it = fit["lazy"]
            q = counts["nqueens"][ps[0]]
            rq = (real["nqueens"] - 1) * q["dag_work"] - q["polls"] * CHECK
            excess = max(0.0, rf / f["joins"] - join)  # promote + pop per join
            pop = min(POP, excess / 2)
            promote = excess - pop
            split = max(0.0, (rq - q["loops"] * lp - q["iterations"] * it) / q["promotions"] - promote - pop)
            shared = {"promote": promote, "split": split, "pop": pop}
        elif g == "ws-ap":
            # ws's joins, promotions and splits; its loop pieces arm the partitioner's clock and
            # read it after every chunk, so `loop` and `iter` are its own, fitted as the lazy
            # group's after the splits that the deferral still lets long pieces make at P = 1.
            join = fit["eager"][0]
            per_split = shared["promote"] + shared["split"] + shared["pop"]
            lp, it = fit_minimax(rows(lambda c: c["polls"] * CHECK + c["loop_splits"] * per_split))
        else:
            lp, it = fit_minimax(rows(lambda c: c["polls"] * CHECK))
            join = max(0.0, (rf - f["polls"] * CHECK) / f["joins"])
        fit[g] = (join, lp, it)
    for g in ("lazy", "eager", "ws-ap", "wool"):
        ps = GROUPS[g]
        per = lambda d: ", ".join(f"{d[p]:.2f}" for p in ps)
        cells = " | ".join(f"{statistics.median(ratios[k][p] for p in ps):.2f} ({per(ratios[k])})" for k in loop_kernels)
        join, lp, it = fit[g]
        print(f"| {g} | {statistics.median(fib_ratio[p] for p in ps):.2f} ({per(fib_ratio)}) | {cells} | {join:.0f} "
              f"| {lp:.0f} | {it:.0f} | {shared['promote']:.0f} | {shared['split']:.0f} |")
    print(f"(check = {CHECK}, pop = {shared['pop']:.0f}; promote, split and pop are ws's, shared by every policy)")
    steal = real_steal(args.steal_cost) if args.steal_cost else None
    if steal is not None:
        print(f"steal = {steal} (the median of tools/weft-overhead steal over the deque and Wool policies)")
    if args.out:
        write_costs(args.out, fit, shared, steal, f"{fib_txt}, {kernels}, {dag_dir}")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
