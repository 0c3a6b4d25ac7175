"""From runs to cells: the cross-system checksum check, medians per (kernel, variant,
workers, configuration), steal costs, and the ratios to the serial elision Ts."""
from __future__ import annotations

import statistics

from . import records as R
from .options import steal_of_variant

# a cell's status from its runs' statuses: the first that occurs wins (an over-cap or
# timed-out run among ok ones makes the cell over cap / timeout: the median of the runs that
# finished in time would flatter the configuration)
PRECEDENCE = (R.WRONG, R.FAILED, R.OVER_CAP, R.TIMEOUT, R.OK, R.MISSING)


def median_or_none(xs):
    return statistics.median(xs) if xs else None


def int_if_whole(x):
    return int(x) if isinstance(x, float) and x.is_integer() else x


def check_checksums(runs):
    """A checksum unlike the serial binary's (else the most common one) makes a run WRONG."""
    by_group = {}
    for rec in runs:
        if rec.status == R.OK and rec.checksum is not None:
            by_group.setdefault((rec.kernel, rec.variant, rec.workers), []).append(rec)
    for recs in by_group.values():
        serial = [r.checksum for r in recs if r.system == "serial"]
        pool = serial or [r.checksum for r in recs]
        ref = max(set(pool), key=pool.count)
        whose = "the serial binary's" if serial else "the most common one,"
        for r in recs:
            if r.checksum != ref:
                r.status = R.WRONG
                r.reason = f"checksum {r.checksum} differs from {whose} {ref}"


def steal_figures(cell, ok, variant):
    """Steal cost per tree = (T - T_leaf) / R, T_leaf per leaf, weft steals per tree."""
    costs, leafs = [], []
    for r in ok:
        reps = r.reps or (steal_of_variant(variant) or (None, None))[1]
        if isinstance(r.leaf_time_s, (int, float)) and reps:
            costs.append((r.time_s - r.leaf_time_s) / reps * 1e9)
            if r.reps:
                leafs.append(r.leaf_time_s / r.reps * 1e9)
    cell.steal_cost_ns = median_or_none(costs)
    cell.leaf_ns = median_or_none(leafs)
    if ok and not costs:
        cell.status = R.MISSING
        cell.reason = "the JSON line has no leaf_time_s/reps (see KERNELS.md, Variants)"
    if ok and cell.stat("steals") is not None:
        cell.steals_per_tree = cell.stat("steals") / (ok[0].reps or 1)


def cell_of_runs(recs) -> R.Cell:
    first = recs[0]
    ok = [r for r in recs if r.status == R.OK]
    statuses = {r.status for r in recs}
    status = next(s for s in PRECEDENCE if s in statuses)
    reasons = [r.reason for r in recs if r.reason]
    times = [r.time_s for r in ok]
    cell = R.Cell(kernel=first.kernel, variant=first.variant, workers=first.workers,
                  label=first.label, system=first.system, policy=first.policy, status=status,
                  n_ok=len(ok), n_runs=sum(r.runs_covered for r in recs),
                  median_s=median_or_none(times),
                  min_s=min(times) if times else None, max_s=max(times) if times else None,
                  times_s=times, reason=reasons[0] if reasons and status != R.OK else "")
    if status == R.OVER_CAP:
        cell.cap_s = next(r.cap_s for r in recs if r.status == R.OVER_CAP)
        cell.median_s = cell.min_s = cell.max_s = None
    if status == R.TIMEOUT:
        cell.median_s = cell.min_s = cell.max_s = None
    pols = [r.reported_policy for r in ok if r.reported_policy]
    if pols:
        cell.reported_policy = max(set(pols), key=pols.count)
    stats = [r.stats for r in ok if isinstance(r.stats, dict)]
    if stats:
        names = sorted({k for s in stats for k in s})
        cell.stats_median = {n: int_if_whole(median_or_none([s[n] for s in stats if n in s]))
                             for n in names}
    if first.variant.startswith("steal-cost"):
        steal_figures(cell, ok, first.variant)
    return cell


def cells_not_run(plan, inv, have):
    """Configurations without a run in a group (missing binary, kernel or policy, a
    timeout earlier, an interruption): a cell with the reason."""
    out = []
    for g in plan.groups:
        for c in g.configs:
            if (g.kernel, g.variant, g.workers, c.label) in have:
                continue
            if c.system in inv.missing_bin:
                st, reason = R.MISSING, inv.missing_bin[c.system]
            else:
                st, reason = plan.skip_reason(c, g) or (R.MISSING, "not run (interrupted)")
            out.append(R.Cell(kernel=g.kernel, variant=g.variant, workers=g.workers,
                              label=c.label, system=c.system, policy=c.weft_policy,
                              status=st, reason=reason))
    return out


def analyse(runs, plan, inv):
    """(cells in plan order, index (kernel, variant, workers, label) -> cell)."""
    check_checksums(runs)
    by_key = {}
    for rec in runs:
        by_key.setdefault((rec.kernel, rec.variant, rec.workers, rec.label), []).append(rec)
    cells = [cell_of_runs(recs) for recs in by_key.values()]
    cells += cells_not_run(plan, inv, set(by_key))
    gpos = {g.key: i for i, g in enumerate(plan.groups)}
    cpos = {c.label: i for i, c in enumerate(plan.configs)}
    cells.sort(key=lambda m: (gpos.get((m.kernel, m.variant, m.workers), 1 << 30),
                              cpos.get(m.label, 1 << 30)))
    idx = {m.key: m for m in cells}
    for m in cells:
        if m.variant:
            continue
        m.ts_s = ts_for(idx, m.kernel, m.workers)
        if m.ts_s and m.median_s and m.is_ok:
            m.t_over_ts = m.median_s / m.ts_s
            m.speedup = m.ts_s / m.median_s
    return cells, idx


def ts_for(idx, kernel, workers):
    """The serial median of the same worker-count group (run side by side), else any."""
    m = idx.get((kernel, "", workers, "serial"))
    if m and m.is_ok and m.median_s:
        return m.median_s
    others = [v.median_s for k, v in idx.items()
              if k[0] == kernel and k[1] == "" and k[3] == "serial" and v.is_ok and v.median_s]
    return statistics.median(others) if others else None


def tasks_for(idx, kernel, label="weft:default"):
    """N_T = joins + loop_iterations of the weft run at 1 worker (median over runs)."""
    m = idx.get((kernel, "", 1, label))
    if not m or not m.stats_median:
        return None
    if m.stat("joins") is None and m.stat("loop_iterations") is None:
        return None
    return (m.stat("joins") or 0) + (m.stat("loop_iterations") or 0)


def default_policy_name(cells, probed):
    """weft:default's policy as its runs reported it, else what the probe said."""
    for m in cells:
        if m.label == "weft:default" and m.reported_policy:
            return m.reported_policy
    return probed
