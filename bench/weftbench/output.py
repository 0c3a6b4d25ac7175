"""results.json (everything) and results.csv (one row per cell)."""
import csv
import json

CSV_COLUMNS = ["kernel", "variant", "workers", "system", "policy", "label", "reported_policy",
               "status", "n_ok", "n_runs", "median_s", "min_s", "max_s", "ts_s", "t_over_ts",
               "speedup", "cap_s", "joins", "loop_iterations", "steals", "promotions",
               "steal_cost_ns", "leaf_ns", "reason"]
STAT_COLUMNS = ("joins", "loop_iterations", "steals", "promotions")


def write_json(path, meta, plan, inv, cells, runs):
    medians = [m.to_dict() for m in cells]
    data = {"meta": meta,
            "configs": [{"label": c.label, "system": c.system, "policy": c.weft_policy,
                         "binary": str(inv.binaries.get(c.system, "")) or None,
                         "missing": inv.missing_bin.get(c.system)} for c in plan.configs],
            "medians": medians,
            "steal_cost": [m for m in medians if m["variant"]],
            "runs": [r.to_dict() for r in runs]}
    tmp = path.with_suffix(".json.tmp")
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, default=str)
        f.write("\n")
    tmp.replace(path)


def write_csv(path, cells):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS, extrasaction="ignore")
        w.writeheader()
        for m in cells:
            row = m.to_dict()
            for k in STAT_COLUMNS:
                row[k] = m.stat(k)
            w.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in CSV_COLUMNS})
