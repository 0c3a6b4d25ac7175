"""latest.md: one function per section, each from the same ReportContext."""
from __future__ import annotations

from dataclasses import dataclass

from . import records as R
from .analyse import tasks_for, ts_for
from .binaries import PEERS, SCRUB_ENV
from .fmt import fmt_dur, fmt_num, fmt_time, md_table, plural
from .options import steal_of_variant


@dataclass
class ReportContext:
    opts: object
    plan: object
    inv: object
    meta: dict
    cells: list
    idx: dict
    runs: list
    plots: list
    plot_note: str

    @property
    def labels(self):
        return [c.label for c in self.plan.configs]

    @property
    def non_serial(self):
        return [lab for lab in self.labels if lab != "serial"]

    @property
    def weft_labels(self):
        return [c.label for c in self.plan.configs if c.system == "weft"]

    @property
    def peers(self):
        return [c.label for c in self.plan.configs if c.system in PEERS]

    @property
    def default_policy(self):
        return self.meta.get("default_policy") or "unknown"

    def cell(self, kernel, workers, label, variant=""):
        return self.idx.get((kernel, variant, workers, label))


def cell_status(m):
    """The table cell of a configuration that has no figure, or None."""
    if m is None:
        return "—"
    return {R.WRONG: "**WRONG**", R.FAILED: "**FAILED**", R.TIMEOUT: "timeout",
            R.OVER_CAP: "over cap", R.MISSING: "missing"}.get(m.status)


def cell_ratio(m, attr):
    s = cell_status(m)
    if s is not None:
        return s
    v = getattr(m, attr)
    return f"{v:.2f}" if v is not None else "—"


def workers_title(w):
    return f"### {plural(w, 'worker')}"


def header(ctx):
    o, meta, mi = ctx.opts, ctx.meta, ctx.meta["machine"]
    machine = (f"{mi['cpu_model']}, nproc = {mi['nproc']}"
               + (f", load average at start {mi['loadavg_at_start']}"
                  if mi.get("loadavg_at_start") else "")
               + (f", host {mi['hostname']}" if mi.get("hostname") else "")
               + (f", git {mi['git']}" if mi.get("git") else ""))
    L = [f"# weft benchmark results ({o.mode} mode)", "",
         f"- Command: `{meta['command']}`",
         f"- Date: {meta['date']} (finished {meta['finished']})",
         f"- Machine: {machine}",
         f"- Sizes: `--size {o.mode}`; workers {', '.join(map(str, o.workers))}; {o.runs} "
         f"timed run(s) per configuration, in processes of "
         f"{' + '.join(map(str, o.blocks))} (`BIN --reps R`: one input generation, warm-up "
         f"and check per process), the processes round-robin over the configurations of one "
         f"kernel and worker count (A B C A B C ...); every figure is a median.",
         f"- Wall time of this run: {fmt_dur(meta['elapsed_s'])} (estimated beforehand: "
         f"{fmt_dur(meta['estimated_s'])}); {meta['runs_done']} timed runs in "
         f"{meta.get('processes', meta['runs_done'])} processes."]
    if meta.get("interrupted"):
        L.append("- **Interrupted**: the tables hold what had run by then.")
    L += [f"- weft's default policy (what `weft-bench-weft` runs without `--policy`) is "
          f"**{ctx.default_policy}**; its column is `weft:default`. Other weft columns are "
          f"`weft:<policy>`.",
          f"- Ts is the median of the serial binary (`weft-bench-serial`, the serial elision) "
          f"in the same kernel and worker-count group. The environment variables "
          f"{', '.join(SCRUB_ENV)} are removed for the binaries"
          + (f" (removed in this run: {', '.join(meta['scrubbed_env'])})."
             if meta.get("scrubbed_env") else " (none was set in this run)."),
          f"- Time cap of a non-serial run: {o.cap.describe()}"
          f"{', per timed run (a process of R runs gets R times it)' if o.cap.enabled else ''}"
          f"; every process: --timeout "
          f"{fmt_time(o.timeout)}. A run over its cap is stopped and its cell reads "
          f"\"over cap\" (see [Over the time cap](#over-the-time-cap))."]
    L += [f"- Note: {n}" for n in ctx.inv.notes]
    return L + [""]


def failures(ctx):
    bad = [r for r in ctx.runs if r.status in R.FAILURES]
    if not bad:
        return []
    n_bad = sum(r.runs_covered for r in bad)  # a failed process of R runs stands for R runs
    L = ["## FAILURES", "", f"**{n_bad} run(s) were WRONG or FAILED; the driver exits "
         f"non-zero.**", ""]
    counts = {}
    for r in bad:
        counts.setdefault((r.label, r.kernel, r.variant, r.workers, r.status), []).append(r)
    for rs in counts.values():
        r = rs[0]
        L.append(f"- **{r.status}** {r.label} {r.kernel}{' ' + r.variant if r.variant else ''}"
                 f" P={r.workers} ({sum(x.runs_covered for x in rs)} of {ctx.opts.runs} runs):"
                 f" {r.reason}  \n"
                 f"  `{r.command}`")
    return L + [""]


def single_worker_overhead(ctx):
    L = ["## Single-worker overhead T1/Ts", ""]
    if 1 not in ctx.opts.workers:
        return L + ["Not measured: 1 is not among the worker counts.", ""]
    L += ["T1 = median time at 1 worker; Ts = median of the serial elision. 1.00 means no "
          "overhead; the SPEC's goal for fib is at most 2 (aim 1.5).", ""]
    rows = [[k, fmt_time(ts_for(ctx.idx, k, 1))] +
            [cell_ratio(ctx.cell(k, 1, lab), "t_over_ts") for lab in ctx.non_serial]
            for k in ctx.plan.kernels]
    return L + [md_table(["kernel", "Ts"] + ctx.non_serial, rows), ""]


def speedups(ctx):
    L = ["## Speedup over Ts", "", "Speedup = Ts / T_P (median times). Ideal is P.", ""]
    for w in ctx.opts.workers:
        rows = [[k] + [cell_ratio(ctx.cell(k, w, lab), "speedup") for lab in ctx.non_serial]
                for k in ctx.plan.kernels]
        L += [workers_title(w), "", md_table(["kernel"] + ctx.non_serial, rows), ""]
    return L


def median_times(ctx):
    L = ["## Median times", ""]
    for w in ctx.opts.workers:
        rows = []
        for k in ctx.plan.kernels:
            cells = [ctx.cell(k, w, lab) for lab in ctx.labels]
            rows.append([k] + [cell_status(m) or fmt_time(m.median_s) for m in cells])
        L += [workers_title(w), "", md_table(["kernel"] + ctx.labels, rows), ""]
    return L


def per_task_overhead(ctx):
    L = ["## Per-task overhead", "",
         "Overhead per task in ns = (T1 − Ts) / N_T, as WOOL Table II. **N_T (tasks) = `joins + "
         "loop_iterations`** from the weft counters of the weft:default run at 1 worker "
         "(median over its runs): every join and every loop iteration of the declarative "
         "program is one potential task. The same N_T is used for every system, because all "
         "systems run the same algorithm: for peers it is the overhead per *logical* task, "
         "whatever number of real tasks they create (an `omp for` or TBB's auto partitioner "
         "creates far fewer). Negative values mean faster than the serial elision (noise or "
         "code generation).", ""]
    if 1 not in ctx.opts.workers:
        return L + ["Not measured: 1 is not among the worker counts.", ""]
    rows = []
    for k in ctx.plan.kernels:
        nt, ts = tasks_for(ctx.idx, k), ts_for(ctx.idx, k, 1)
        row = [k, fmt_num(nt)]
        for lab in ctx.non_serial:
            m = ctx.cell(k, 1, lab)
            s = cell_status(m)
            if s is not None:
                row.append(s)
            elif nt and ts and m.median_s is not None:
                row.append(f"{(m.median_s - ts) / nt * 1e9:.2f}")
            else:
                row.append("—")
        rows.append(row)
    hdr = ["kernel", "N_T"] + [f"{lab} ns/task" for lab in ctx.non_serial]
    return L + [md_table(hdr, rows), ""]


LOAD_BALANCING_TEXT = (
    "As in WOOL Table I: task granularity **G_T = Ts / N_T** (serial work per task; N_T "
    "as above, from the run at 1 worker) and load-balancing granularity **G_L(P) = Ts / "
    "N_M** where N_M is the number of successful steals (`steals`, median over the runs "
    "of that policy at P workers). G_T says how fine the tasks are (the smaller, the more "
    "the per-task overhead matters); G_L says how much serial work there is per steal "
    "(the larger, the better the scheduler amortizes each steal: compare it with the "
    "steal cost below). WOOL gives cycles; here ns and µs. With 1 worker there are no "
    "steals.")


def load_balancing_table(ctx, wl):
    multi = [w for w in ctx.opts.workers if w > 1]
    hdr = ["kernel", "Ts", "N_T", "G_T (ns)"]
    for w in multi:
        hdr += [f"N_M (P={w})", f"G_L(P={w}) (µs)", f"promotions (P={w})"]
    rows = []
    for k in ctx.plan.kernels:
        ts = ts_for(ctx.idx, k, 1) or ts_for(ctx.idx, k, multi[0] if multi else 1)
        nt = tasks_for(ctx.idx, k, wl)
        row = [k, fmt_time(ts), fmt_num(nt), f"{ts / nt * 1e9:.3g}" if ts and nt else "—"]
        for w in multi:
            m = ctx.cell(k, w, wl)
            s = cell_status(m)
            if s is not None:
                row += [s, s, s]
                continue
            nm = m.stat("steals")
            row += [fmt_num(nm), f"{ts / nm * 1e6:.3g}" if ts and nm else "—",
                    fmt_num(m.stat("promotions"))]
        rows.append(row)
    return md_table(hdr, rows)


def load_balancing(ctx):
    L = ["## Load balancing (weft counters, WOOL §II)", "", LOAD_BALANCING_TEXT, ""]
    for wl in ctx.weft_labels:
        title = f"### {wl}" + (f" ({ctx.default_policy})" if wl == "weft:default" else "")
        L += [title, "", load_balancing_table(ctx, wl), ""]
    return L


def compared_workers(ctx):
    return [w for w in ctx.opts.workers if w in (1, 2)] or ctx.opts.workers[:2]


def weft_status(mw):
    """The T_peer / T_weft cell when weft:default has no figure: weft's own status, labelled as
    weft's (the peer's column must not read as if the peer had failed or gone over its cap)."""
    if mw is None:
        return "no weft run"
    return {R.WRONG: "weft **WRONG**", R.FAILED: "weft **FAILED**", R.TIMEOUT: "weft timeout",
            R.OVER_CAP: "weft over cap", R.MISSING: "weft missing"}.get(mw.status)


def peer_ratio_row(ctx, k, losses, tally):
    """One kernel's T_peer / T_weft cells; the peers faster than weft go into losses (a peer
    with a time where weft has none because it failed, timed out or went over its cap counts as
    faster: its T_weft is None), and tally["uncompared"] counts the cells without a ratio."""
    row = [k]
    for p in ctx.peers:
        for w in compared_workers(ctx):
            mw, mp = ctx.cell(k, w, "weft:default"), ctx.cell(k, w, p)
            sp, sw = cell_status(mp), weft_status(mw)
            if sp is not None or sw is not None:
                row.append(sp if sp is not None else sw)
                tally["uncompared"] = tally.get("uncompared", 0) + 1
                if sp is None and mw is not None and \
                        mw.status in (R.WRONG, R.FAILED, R.TIMEOUT, R.OVER_CAP):
                    losses.setdefault(w, []).append((p, mp.median_s, None, mw.status))
                continue
            r = mp.median_s / mw.median_s
            row.append(f"**{r:.2f}**" if r < 1 else f"{r:.2f}")
            if r < 1:
                losses.setdefault(w, []).append((p, mp.median_s, mw.median_s, R.OK))
    return row


def slower_sentence(ctx, k, losses):
    parts = []
    for w in sorted(losses):
        timed = [(p, t, tw) for p, t, tw, _ in losses[w] if tw is not None]
        if timed:
            tw = timed[0][2]
            peers_txt = " and ".join(f"{p} ({fmt_time(t)}; weft takes {tw / t:.2f}× as long)"
                                     for p, t, _ in timed)
            parts.append(f"at {plural(w, 'worker')} weft ({ctx.default_policy}, "
                         f"{fmt_time(tw)}) is slower than {peers_txt}")
        for p, t, _, st in losses[w]:
            if st != R.OK:
                parts.append(f"at {plural(w, 'worker')} weft ({ctx.default_policy}) has no time "
                             f"({st}) while {p} takes {fmt_time(t)}")
    return f"- **{k}**: " + "; ".join(parts) + "."


def default_vs_peers(ctx):
    dp, cmp_ws = ctx.default_policy, compared_workers(ctx)
    L = ["## weft default policy vs each peer", "",
         f"weft:default is policy **{dp}**. Each cell is T_peer / T_weft (medians at the "
         f"same worker count): above 1 weft is faster, below 1 (bold) the peer is faster. A "
         f"cell without a ratio says whose figure is missing: the peer's status (e.g. \"over "
         f"cap\": the peer passed its cap), or weft's (\"weft over cap\", \"weft **FAILED**\", "
         f"\"no weft run\").", ""]
    if not ctx.peers:
        return L + ["No peer was run.", ""]
    if "weft:default" not in ctx.labels:
        return L + ["weft:default was not run (no `default` among `--policies`, or weft not "
                    "among `--systems`): nothing to compare.", ""]
    rows, slower, tally = [], [], {}
    for k in ctx.plan.kernels:
        losses = {}
        rows.append(peer_ratio_row(ctx, k, losses, tally))
        if losses:
            slower.append(slower_sentence(ctx, k, losses))
    L += [md_table(["kernel"] + [f"{p} P={w}" for p in ctx.peers for w in cmp_ws], rows), ""]
    if slower:
        L += [f"Kernels where weft's default policy is slower than a peer at "
              f"{' or '.join(map(str, cmp_ws))} worker(s):", ""] + slower + [""]
    n = tally.get("uncompared", 0)
    if n:
        return L + [f"{plural(n, 'cell')} could not be compared (no figure for weft or the "
                    f"peer); no claim is made about them.", ""]
    if slower:
        return L
    return L + [f"weft's default policy ({dp}) is at least as fast as every peer measured, on "
                f"every kernel measured, at {' and '.join(map(str, cmp_ws))} worker(s).", ""]


def steal_cost_text(variant):
    leaf_it, reps = steal_of_variant(variant) or (None, None)
    return (f"`weft-bench-<system> --kernel stress --variant {variant} --workers P`: R = {reps} "
            f"repetitions of a balanced join tree of height log2(P) whose leaves each run the "
            f"stress leaf loop L = {leaf_it} times (see bench/KERNELS.md, Variants). "
            f"Cost per tree = (T − T_leaf) / R, T the time of the R trees on P workers, T_leaf "
            f"the time of R single leaves run serially in the same process; at P = 2 a tree "
            f"needs exactly one steal and one join with the thief, so the cost is the cost of "
            f"one steal (WOOL's column \"2\": 2 200 cycles for Wool, 5 800 for TBB, 4 830 for "
            f"OpenMP). A cost close to T_leaf means the thief did not get the second leaf in "
            f"time and the owner ran both.")


def steal_cost_row(m):
    s = cell_status(m)
    if s is not None:
        return [m.label, m.workers, s, "—", "—", m.reason[:120]]
    cost, spt = m.steal_cost_ns, m.steals_per_tree
    return [m.label, m.workers, f"{cost:,.0f}" if cost is not None else "—",
            f"{m.leaf_ns:,.0f}" if m.leaf_ns else "—",
            f"{spt:.2f}" if spt is not None else "—", steal_cost_note(cost, m.leaf_ns)]


def steal_cost_note(cost, leaf_ns):
    """What a tree's cost says against T_leaf: about T_leaf, the owner probably ran both leaves
    (no steal in time); far above it, the fork and join themselves cost more than a leaf (an
    OpenMP team waking up: 300 x T_leaf was read as "probably no steal" before)."""
    if cost is None or not leaf_ns or cost <= 0.8 * leaf_ns:
        return ""
    if cost <= 1.5 * leaf_ns:
        return "≈ T_leaf: probably no steal"
    return f"{cost / leaf_ns:,.0f} × T_leaf: the fork and join cost more than a leaf"


def steal_cost(ctx):
    L = ["## Steal cost (WOOL Table III)", ""]
    sc = [m for m in ctx.cells if m.variant]
    if not sc:
        return L + ["Not run (`--steal-cost none`, or stress not among the kernels).", ""]
    order = {lab: i for i, lab in enumerate(ctx.labels)}
    sc.sort(key=lambda m: (m.workers, order.get(m.label, 99)))
    hdr = ["system", "P", "ns per tree (per steal at P=2)", "T_leaf (ns)",
           "weft steals per tree", "note"]
    return L + [steal_cost_text(sc[0].variant), "",
                md_table(hdr, [steal_cost_row(m) for m in sc]), ""]


def over_cap(ctx):
    L = ["## Over the time cap", ""]
    if not ctx.opts.cap.enabled:
        return L + ["No cap in this run: every run went to its end.", ""]
    L += [f"A non-serial run may take {ctx.opts.cap.describe()}. A configuration over it at "
          f"a size is hopeless there (tens of times slower than the serial elision): its run "
          f"is stopped, the rest of its runs at that worker count are skipped, and it is tried "
          f"again at the next worker count. Not a failure.", ""]
    over = [m for m in ctx.cells if m.status == R.OVER_CAP]
    if not over:
        return L + ["No configuration went over its cap.", ""]
    rows = [[m.kernel + (f" {m.variant}" if m.variant else ""), m.workers, m.label,
             fmt_time(m.cap_s), fmt_time(m.ts_s), f"{m.n_ok} of {m.n_runs}"] for m in over]
    return L + [md_table(["kernel", "P", "configuration", "cap", "Ts", "runs under the cap"],
                         rows), ""]


def plots_section(ctx):
    L = ["## Plots", ""]
    if not ctx.plots:
        return L + [ctx.plot_note or "No plot (nothing to draw).", ""]
    for title, f in ctx.plots:
        L += [f"### {title}", "", f"![{title}]({f})", ""]
    return L


def missing_columns(ctx):
    miss = [f"- **{s}** (all kernels): {reason}" for s, reason in ctx.inv.missing_bin.items()]
    seen = set()
    for m in ctx.cells:
        if m.status not in (R.MISSING, R.TIMEOUT) or m.system in ctx.inv.missing_bin:
            continue
        k = (m.label, m.kernel, m.variant, m.status)
        if k in seen:
            continue
        seen.add(k)
        miss.append(f"- **{m.label}** {m.kernel}{' ' + m.variant if m.variant else ''}: "
                    f"{'timeout: ' if m.status == R.TIMEOUT else ''}{m.reason}")
    if not miss:
        failed = any(m.status in R.FAILURES for m in ctx.cells)
        miss = ["None missing; but some configurations FAILED or were WRONG (see "
                "[FAILURES](#failures))." if failed else "None: every configuration ran."]
    return ["## Missing columns", ""] + miss + [""]


def data_section(ctx):
    return ["## Data", "",
            "Every single run (command, exit code, time, checksum, weft counters) and the "
            "medians: [results.json](results.json); one row per configuration: "
            f"[results.csv](results.csv). Reproduce with `{ctx.meta['command']}`.", ""]


SECTIONS = (header, failures, single_worker_overhead, speedups, median_times,
            per_task_overhead, load_balancing, default_vs_peers, steal_cost, over_cap,
            plots_section, missing_columns, data_section)


def report(ctx: ReportContext) -> str:
    lines = []
    for section in SECTIONS:
        lines += section(ctx)
    return "\n".join(lines)
