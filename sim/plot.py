#!/usr/bin/env python3
"""Figures and markdown tables from weft-sim JSON output (docs/results/sim.md).

    plot.py all DIR          every figure and table for the files sim/experiments.sh writes
    plot.py tables DIR       the tables alone (no figures: no matplotlib needed)
    plot.py speedup FILE OUT one speedup-vs-P figure (median over seeds) for any weft-sim JSON

The figures need matplotlib: without it `all` and `speedup` exit 1 and say how to install it.
"""
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path


# What the tables and figures read of a run (weft-sim writes them all).
RUN_FIELDS = {"dag", "policy", "P", "costs", "speedup", "thefts", "work", "dag_work", "raw_work", "exec_span",
              "dag_span_tau", "memory_peak", "dag_serial_memory"}


def load(path):
    """The runs of a weft-sim JSON file; a missing, unreadable or run-less file exits 1 naming it
    (a Python traceback before stop 45)."""
    try:
        runs = json.loads(Path(path).read_text())["runs"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"plot.py: {path}: not a weft-sim JSON file ({e.__class__.__name__}: {e})")
    # Each run an object with the fields the tables read: {"runs": 5} or {"runs": [{}]} raised a
    # TypeError or KeyError out of the table that read them (the sim hunt of stop 50).
    if not isinstance(runs, list):
        sys.exit(f"plot.py: {path}: not a weft-sim JSON file (its \"runs\" is no list)")
    if not runs:
        sys.exit(f"plot.py: {path}: no runs in it")
    for i, r in enumerate(runs):
        missing = RUN_FIELDS - set(r) if isinstance(r, dict) else RUN_FIELDS
        if missing or not isinstance(r.get("costs"), dict):
            sys.exit(f"plot.py: {path}: not a weft-sim JSON file (run {i} lacks "
                     f"{', '.join(sorted(missing)) or 'its costs'})")
    return runs


def median_by(runs, key, value):
    groups = defaultdict(list)
    for r in runs:
        groups[key(r)].append(value(r))
    return {k: statistics.median(v) for k, v in groups.items()}


TABLES_ONLY = False  # plot.py tables: draw nothing


def pyplot():
    """matplotlib's pyplot; None in the tables-only mode.  Asked for a figure without matplotlib,
    exit 1: printing "tables only" and exiting 0 with no figure written looked like success."""
    if TABLES_ONLY:
        return None
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        sys.exit("plot.py: matplotlib is missing, so no figure can be drawn: install it "
                 "(scripts/install-deps.sh puts it in .venv, or python3 -m pip install matplotlib) "
                 "and run with that python; `plot.py tables DIR` writes the tables alone")


def speedup_figure(runs, out, title):
    plt = pyplot()
    if plt is None:
        return
    # One curve per policy and per combination of the costs the sweep varied (--cost steal=100,1000
    # draws two curves a policy, not their median); seeds (--runs) are the median's samples.
    # (Per policy: a preset such as `calibrated` gives policies different costs without a sweep.)
    swept = {}
    for policy in {r["policy"] for r in runs}:
        mine = [r for r in runs if r["policy"] == policy]
        swept[policy] = sorted(k for k in mine[0]["costs"] if len({r["costs"][k] for r in mine}) > 1)

    def curve(r):
        costs = ", ".join(f"{k}={r['costs'][k]}" for k in swept[r["policy"]])
        return r["policy"] + (f" ({costs})" if costs else "")

    med = median_by(runs, lambda r: (curve(r), r["P"]), lambda r: r["speedup"])
    fig, ax = plt.subplots(figsize=(6, 4))
    for name in dict.fromkeys(curve(r) for r in runs):
        ps = sorted(p for (q, p) in med if q == name)
        ax.plot(ps, [med[(name, p)] for p in ps], marker="o", label=name)
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


def ratio(a, b, fmt):
    """a / b formatted, "∞" for a positive a over 0, "–" for 0 / 0: a zero in a user's runs
    (promote=0, N = 0 under a stack policy, a DAG without work or memory) raised ZeroDivisionError
    out of `tables` (stop 48's sim hunt)."""
    if b:
        return format(a / b, fmt)
    return "∞" if a else "–"


def table(rows, header):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def ls_table5(d):
    if not (d / "ls_table5.json").exists():
        return "(no ls_table5.json here)"
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
                         ratio(r["work"], r["dag_work"], ".4f"), ratio(n + tau, n, ".4f"),
                         ratio(r["exec_span"], r["dag_span_tau"], ".2f"), ratio(tau + n, tau, ".0f"),
                         f"{r['speedup']:.1f}"])
        out.append(f"**{runs[0]['dag']}** (τ = {runs[0]['costs']['promote']})\n\n" + table(
            rows, ["P", "credit", "N", "W/w", "1+τ/N", "S/s", "1+N/τ", "speedup"]))
    return "\n\n".join(out)


def memory_table(d, pattern):
    rows = []
    for f in sorted(d.glob(pattern)):
        runs = load(f)
        mem = median_by(runs, lambda r: (r["dag"], r["policy"], r["P"], r["costs"]["quota"]),
                        lambda r: r["memory_peak"])
        for (dag, policy, p, k), m in sorted(mem.items()):
            s1 = runs[0]["dag_serial_memory"]
            rows.append([dag, policy, p, k if k else "∞", f"{s1:.0f}", f"{m:.0f}", ratio(m, s1, ".1f")])
    return table(rows, ["dag", "policy", "P", "K", "S1", "high-water", "high-water / S1"])


def nar_k(d):
    """NAR Figs 7.9-7.12: memory high-water and scheduling granularity vs K (dfd, adf)."""
    plt = pyplot()
    parts = []
    for f in sorted(d.glob("narK_*.json")):
        runs = load(f)
        key = lambda r: (r["policy"], r["costs"]["quota"])
        mem = median_by(runs, key, lambda r: r["memory_peak"])
        gran = median_by(runs, key, lambda r: r["raw_work"] / max(1, r["thefts"]))
        ks = sorted({k for (_, k) in mem if k > 0}, reverse=True)

        def cell(table, pol, k, fmt):
            # A run the file lacks (dfd alone, or no K = 0 run) is a "–", not a KeyError out of
            # `tables` (the sim hunt of stop 50).
            return format(table[(pol, k)], fmt) if (pol, k) in table else "–"

        rows = [["WS (dfd, K = ∞)", cell(mem, "dfd", 0, ".0f"), cell(gran, "dfd", 0, ".0f"), "", ""]]
        rows += [[f"K = {k}", cell(mem, "dfd", k, ".0f"), cell(gran, "dfd", k, ".1f"),
                  cell(mem, "adf", k, ".0f"), cell(gran, "adf", k, ".1f")] for k in ks]
        png = f.with_suffix(".png")
        parts.append(f"**{runs[0]['dag']}**, P = 64, S1 = {runs[0]['dag_serial_memory']:.0f} "
                     f"({png.name})\n\n" + table(rows, ["K", "dfd memory", "dfd granularity",
                                                        "adf memory", "adf granularity"]))
        if plt is None:
            continue
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.6))
        for pol in ("dfd", "adf"):
            mine = [k for k in ks if (pol, k) in mem]
            if mine:
                a1.plot(mine, [mem[(pol, k)] / 1e6 for k in mine], marker="o", label=pol.upper())
                a2.plot(mine, [gran[(pol, k)] for k in mine], marker="o", label=pol.upper())
        if ("dfd", 0) in mem:
            a1.axhline(mem[("dfd", 0)] / 1e6, color="grey", linestyle="--", label="WS")
            a2.axhline(gran[("dfd", 0)], color="grey", linestyle="--", label="WS")
        for a, lab in ((a1, "memory high-water (MB)"), (a2, "actions per steal")):
            a.set_xscale("log")
            a.set_xlabel("memory quota K (bytes)")
            a.set_ylabel(lab)
            a.legend(fontsize=7)
        a2.set_yscale("log")
        fig.suptitle(runs[0]["dag"])
        fig.tight_layout()
        fig.savefig(png, dpi=110)
        plt.close(fig)
    return "\n\n".join(parts)


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
    global TABLES_ONLY
    if len(argv) == 4 and argv[1] == "speedup":
        runs = load(argv[2])  # a bad file is named first; then no matplotlib: no figure, no success
        # A figure into a folder that does not exist was drawn and then a FileNotFoundError
        # traceback out of savefig (stop 52's siminput hunt): said before anything is drawn.
        folder = Path(argv[3]).parent
        if not folder.is_dir():
            print(f"plot.py: cannot write {argv[3]}: its folder {folder} "
                  f"{'is not a folder' if folder.exists() else 'does not exist'}", file=sys.stderr)
            return 2
        pyplot()
        speedup_figure(runs, argv[3], runs[0]["dag"])
        return 0
    if len(argv) != 3 or argv[1] not in ("all", "tables"):
        print(__doc__, file=sys.stderr)
        return 2
    TABLES_ONLY = argv[1] == "tables"
    d = Path(argv[2])
    if not d.is_dir():
        print(f"plot.py: {d} is not a folder (sim/experiments.sh writes its JSON files to one)", file=sys.stderr)
        return 2
    pyplot()
    if (d / "ls_scaling.json").exists():
        speedup_figure(load(d / "ls_scaling.json"), d / "ls_scaling.png", "nqueens(12): LS Figs 4-7")
    sections = [("LS Table V", ls_table5(d)), ("HB Theorems 2-3", hb_table(d)),
                ("NAR Theorem 6.7 DAG", memory_table(d, "nar_lb_*.json")),
                ("NAR Figs 7.9-7.12", nar_k(d)),
                ("NAR §7.2 trees", memory_table(d, "nar_[0-9]*.json")),
                ("Projected speedups", projections(d))]
    text = "\n\n".join(f"### {name}\n\n{body}" for name, body in sections)
    (d / "tables.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
