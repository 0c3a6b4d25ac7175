#!/usr/bin/env python3
"""LS Table V in weft's terms: successful steals (thefts) and promotions per policy and worker
count, for one kernel, from a bench/run.py results.json (medians over the runs).

  tools/thefts_table.py docs/results/adaptive-quick/results.json [--kernel nqueens]
                        [--policies lazy-df,lazy-df2,lazy-bf,ws-ap]
"""
import argparse
import json


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results")
    p.add_argument("--kernel", default="nqueens")
    p.add_argument("--policies", default="lazy-df,lazy-df2,lazy-bf,ws-ap")
    a = p.parse_args()
    try:
        with open(a.results) as f:
            data = json.load(f)
        medians = data["medians"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        p.error(f"{a.results}: not a bench/run.py results.json ({e})")
    policies = a.policies.split(",")
    cells = {}
    explicit = set()  # (policy, workers) of cells from a column naming the policy (weft:lazy-bf)
    for m in medians:
        # the kernel's own runs: its steal-cost variant (stress, "steal-cost:L:R") has the same
        # kernel and worker count, and overwrote the plain cell
        if m["kernel"] != a.kernel or m["system"] != "weft" or m.get("status") != "ok" or m.get("variant"):
            continue
        pol = m.get("reported_policy") or m.get("policy")
        key = (pol, m["workers"])
        # weft:default reports the policy it ran (lazy-bf); beside a weft:lazy-bf column the two
        # were one cell, whichever came last: the column naming the policy wins
        if pol in policies and (key not in explicit):
            if m.get("policy") == pol:
                explicit.add(key)
            s = m.get("stats_median") or {}
            cells[key] = (s.get("steals", 0), s.get("promotions", 0), m["median_s"])
    if not cells:  # a table of no column: a kernel or policy the file does not have (a typo)
        have = sorted({m["kernel"] for m in medians if m.get("system") == "weft"})
        p.error(f"{a.results} has no ok weft run of kernel '{a.kernel}' under "
                f"{', '.join(policies)} (its kernels with weft runs: {', '.join(have) or 'none'})")
    workers = sorted({w for (_, w) in cells})
    # Oversubscribed on the machine the runs were made on (the driver records it), not on the one
    # reading the file: os.cpu_count() here marked a 64-core run's P=8 on a 2-core host.  Without
    # the record no column is marked.
    machine = data.get("meta", {}).get("machine", {}) if isinstance(data.get("meta"), dict) else {}
    nproc = machine.get("nproc") if isinstance(machine, dict) and isinstance(machine.get("nproc"), int) else None
    print(f"| policy | " + " | ".join(f"P={w}{' (oversubscribed)' if nproc and w > nproc else ''}: thefts / promotions / time" for w in workers) + " |")
    print("|---|" + "---|" * len(workers))
    for pol in policies:
        row = []
        for w in workers:
            if (pol, w) in cells:
                st, pr, t = cells[(pol, w)]
                row.append(f"{st:,.0f} / {pr:,.0f} / {t * 1000:.1f} ms")
            else:
                row.append("—")
        print(f"| {pol} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
