#!/usr/bin/env python3
"""Figures and markdown tables from weft-sim JSON output (docs/results/sim.md).

    plot.py all DIR          every figure and table for the files sim/experiments.sh writes
    plot.py speedup FILE OUT one speedup-vs-P figure (median over seeds) for any weft-sim JSON
"""
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def load(path):
    return json.loads(Path(path).read_text())["runs"]


def median_by(runs, key, value):
    groups = defaultdict(list)
    for r in runs:
        groups[key(r)].append(value(r))
    return {k: statistics.median(v) for k, v in groups.items()}


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("plot.py: matplotlib missing; tables only", file=sys.stderr)
        return None


def speedup_figure(runs, out, title):
    plt = pyplot()
    if plt is None:
        return
    med = median_by(runs, lambda r: (r["policy"], r["P"]), lambda r: r["speedup"])
    fig, ax = plt.subplots(figsize=(6, 4))
    for policy in dict.fromkeys(r["policy"] for r in runs):
        ps = sorted(p for (q, p) in med if q == policy)
        ax.plot(ps, [med[(policy, p)] for p in ps], marker="o", label=policy)
    ps = sorted({r["P"] for r in runs})
    ax.plot(ps, ps, color="grey", linestyle=":", label="linear")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("processors P")
    ax.set_ylabel("speedup W / makespan")
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def table(rows, header):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def ls_table5(d):
    runs = load(d / "ls_table5.json")
    thefts = median_by(runs, lambda r: (r["policy"], r["P"]), lambda r: r["thefts"])
    speed = median_by(runs, lambda r: (r["policy"], r["P"]), lambda r: r["speedup"])
    pols = list(dict.fromkeys(r["policy"] for r in runs))
    rows = [[f"P = {p}"] + [f"{thefts[(q, p)]:.0f} ({speed[(q, p)]:.1f}x)" for q in pols]
            for p in sorted({r["P"] for r in runs})]
    return table(rows, ["thefts (speedup)"] + pols)


def hb_table(d):
    out = []
    for f in sorted(d.glob("hb_*.json")):
        runs = load(f)
        rows = []
        for r in runs:
            c = r["costs"]
            n, tau = c["heartbeat"], c["promote"]
            rows.append([r["P"], "thread" if c["hb_thread_credit"] else "worker", n,
                         f"{r['work'] / r['dag_work']:.4f}", f"{1 + tau / n:.4f}",
                         f"{r['exec_span'] / r['dag_span_tau']:.2f}", f"{1 + n / tau:.0f}",
                         f"{r['speedup']:.1f}"])
        out.append(f"**{runs[0]['dag']}** (τ = {runs[0]['costs']['promote']})\n\n" + table(
            rows, ["P", "credit", "N", "W/w", "1+τ/N", "S/s", "1+N/τ", "speedup"]))
    return "\n\n".join(out)


def memory_table(d, pattern):
    rows = []
    for f in sorted(d.glob(pattern)):
        runs = load(f)
        mem = median_by(runs, lambda r: (r["dag"], r["policy"], r["P"]), lambda r: r["memory_peak"])
        for (dag, policy, p), m in sorted(mem.items()):
            s1 = runs[0]["dag_serial_memory"]
            rows.append([dag, policy, p, f"{s1:.0f}", f"{m:.0f}", f"{m / s1:.1f}"])
    return table(rows, ["dag", "policy", "P", "S1", "high-water", "ratio"])


def projections(d):
    parts = []
    for f in sorted(d.glob("proj_*.json")):
        runs = load(f)
        speedup_figure(runs, f.with_suffix(".png"), runs[0]["dag"])
        med = median_by(runs, lambda r: (r["policy"], r["P"]), lambda r: r["speedup"])
        pols = list(dict.fromkeys(r["policy"] for r in runs))
        ps = sorted({r["P"] for r in runs})
        rows = [[q] + [f"{med[(q, p)]:.1f}" for p in ps] for q in pols]
        parts.append(f"**{runs[0]['dag']}** ({f.with_suffix('.png').name})\n\n" +
                     table(rows, ["policy"] + [f"P={p}" for p in ps]))
    return "\n\n".join(parts)


def main(argv):
    if len(argv) == 4 and argv[1] == "speedup":
        runs = load(argv[2])
        speedup_figure(runs, argv[3], runs[0]["dag"])
        return 0
    if len(argv) != 3 or argv[1] != "all":
        print(__doc__, file=sys.stderr)
        return 2
    d = Path(argv[2])
    if (d / "ls_scaling.json").exists():
        speedup_figure(load(d / "ls_scaling.json"), d / "ls_scaling.png", "nqueens(12): LS Figs 4-7")
    sections = [("LS Table V", ls_table5(d)), ("HB Theorems 2-3", hb_table(d)),
                ("NAR Theorem 6.7 DAG", memory_table(d, "nar_lb_*.json")),
                ("NAR §7.2 trees", memory_table(d, "nar_[0-9]*.json")),
                ("Projected speedups", projections(d))]
    text = "\n\n".join(f"### {name}\n\n{body}" for name, body in sections)
    (d / "tables.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
