"""PNG plots next to the report (matplotlib, imported only here)."""
import math

from . import records as R


def _speedup_plot(plt, ctx, out):
    kernels, labels, colors, idx, opts = ctx["speedup_kernels"], ctx["labels"], \
        ctx["colors"], ctx["idx"], ctx["opts"]
    ncols = min(4, len(kernels))
    nrows = math.ceil(len(kernels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.6 * ncols, 3.0 * nrows), squeeze=False)
    ws = opts.workers
    for i, k in enumerate(kernels):
        ax = axes[i // ncols][i % ncols]
        ax.plot(ws, ws, ls="--", color="grey", lw=0.8, label="ideal")
        for lab in labels:
            pts = [(w, idx[(k, "", w, lab)].speedup) for w in ws
                   if (k, "", w, lab) in idx and idx[(k, "", w, lab)].speedup]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3,
                        label=lab, color=colors[lab])
        ax.set_title(k, fontsize=10)
        ax.set_xticks(ws)
        ax.set_xlabel("workers", fontsize=8)
        ax.set_ylabel("speedup over Ts", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    for j in range(len(kernels), nrows * ncols):
        axes[j // ncols][j % ncols].axis("off")
    handles, names = [], []
    for ax in axes.flat:
        for h, n in zip(*ax.get_legend_handles_labels()):
            if n not in names:
                handles.append(h)
                names.append(n)
    fig.legend(handles, names, loc="lower center", ncol=min(6, len(names)), fontsize=8)
    fig.suptitle(f"Speedup over the serial elision (Ts), {opts.mode} sizes, "
                 f"medians of {opts.runs} runs")
    fig.tight_layout(rect=(0, 0.06 + 0.02 * math.ceil(len(names) / 6), 1, 0.96))
    fig.savefig(out / "speedup.png", dpi=110)
    plt.close(fig)
    return "Speedup over Ts vs workers, per kernel", "speedup.png"


def _overhead_plot(plt, ctx, out):
    k1, labels, colors, idx = ctx["overhead_kernels"], ctx["labels"], ctx["colors"], ctx["idx"]
    from matplotlib.ticker import FuncFormatter
    fig, ax = plt.subplots(figsize=(min(18.0, max(7.0, 0.22 * len(k1) * len(labels) + 2)), 5.0))
    width = 0.8 / max(1, len(labels))
    for j, lab in enumerate(labels):
        xs, ys = [], []
        for i, k in enumerate(k1):
            m = idx.get((k, "", 1, lab))
            if m and m.t_over_ts:
                xs.append(i + (j - (len(labels) - 1) / 2) * width)
                ys.append(m.t_over_ts)
        if xs:
            ax.bar(xs, ys, width=width, label=lab, color=colors[lab])
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_yscale("log")
    fmt = FuncFormatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_major_formatter(fmt)
    ax.yaxis.set_minor_formatter(fmt)
    ax.tick_params(axis="y", which="both", labelsize=7)
    ax.set_xticks(range(len(k1)))
    ax.set_xticklabels(k1, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("T1 / Ts (log scale)")
    ax.set_title("Single-worker overhead over the serial elision (lower is better)")
    ax.legend(fontsize=7, ncol=min(6, len(labels)), loc="upper center",
              bbox_to_anchor=(0.5, -0.18))
    ax.grid(axis="y", alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(out / "overhead.png", dpi=110)
    plt.close(fig)
    return "T1/Ts per kernel and system", "overhead.png"


def _steal_plot(plt, ctx, out):
    sc, colors = ctx["steal_cells"], ctx["colors"]
    fig, ax = plt.subplots(figsize=(max(5.0, 0.7 * len(sc)), 3.8))
    ax.bar(range(len(sc)), [m.steal_cost_ns / 1e3 for m in sc],
           color=[colors.get(m.label, "grey") for m in sc])
    ax.set_xticks(range(len(sc)))
    ax.set_xticklabels([f"{m.label}\nP={m.workers}" for m in sc], fontsize=7)
    ax.set_ylabel("µs per tree (= per steal at P=2)")
    ax.set_title("Steal cost (WOOL Table III methodology)")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "steal_cost.png", dpi=110)
    plt.close(fig)
    return "Steal cost per system", "steal_cost.png"


def draw_plots(opts, plan, cells, idx, out):
    """Draws the plots there is data for; returns (list of (title, file), note)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [], ("plots not drawn: matplotlib is not installed "
                    "(`python3 -m pip install --user -r bench/requirements.txt`)")
    labels = [c.label for c in plan.configs if c.system != "serial"]
    cmap = plt.get_cmap("tab10" if len(labels) <= 10 else "tab20")
    ctx = {"opts": opts, "idx": idx, "labels": labels,
           "colors": {lab: cmap(i % cmap.N) for i, lab in enumerate(labels)},
           "speedup_kernels": [k for k in plan.kernels
                               if any(m.kernel == k and m.speedup for m in cells)],
           "overhead_kernels": [k for k in plan.kernels
                                if any(idx.get((k, "", 1, lab)) and
                                       idx[(k, "", 1, lab)].t_over_ts for lab in labels)],
           "steal_cells": [m for m in cells if m.variant and m.steal_cost_ns is not None
                           and m.status == R.OK]}
    files = []
    for draw, what in ((_speedup_plot, "speedup_kernels"), (_overhead_plot, "overhead_kernels"),
                       (_steal_plot, "steal_cells")):
        if ctx[what]:
            files.append(draw(plt, ctx, out))
    return files, ""
