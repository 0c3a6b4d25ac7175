"""results.json (everything) and results.csv (one row per cell)."""
import csv
import io
import json

CSV_COLUMNS = ["kernel", "variant", "workers", "system", "policy", "label", "reported_policy",
               "status", "n_ok", "n_runs", "median_s", "min_s", "max_s", "ts_s", "t_over_ts",
               "speedup", "cap_s", "joins", "loop_iterations", "steals", "promotions",
               "steal_cost_ns", "leaf_ns", "reason"]
STAT_COLUMNS = ("joins", "loop_iterations", "steals", "promotions")


def json_text(meta, plan, inv, cells, runs):
    medians = [m.to_dict() for m in cells]
    data = {"meta": meta,
            "configs": [{"label": c.label, "system": c.system, "policy": c.weft_policy,
                         "binary": str(inv.binaries.get(c.system, "")) or None,
                         "missing": inv.missing_bin.get(c.system)} for c in plan.configs],
            "medians": medians,
            "steal_cost": [m for m in medians if m["variant"]],
            "runs": [r.to_dict() for r in runs]}
    return json.dumps(data, indent=1, default=str) + "\n"


def csv_text(cells):
    f = io.StringIO(newline="")
    w = csv.DictWriter(f, fieldnames=CSV_COLUMNS, extrasaction="ignore")
    w.writeheader()
    for m in cells:
        row = m.to_dict()
        for k in STAT_COLUMNS:
            row[k] = m.stat(k)
        w.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in CSV_COLUMNS})
    return f.getvalue()


def replace_all(files):
    """Writes {path: text} so that the files are either all the old ones or all the new ones
    but for the instant of the renames: each text goes to PATH.tmp first, and only when every
    one is written are they renamed over the old files.  results.json, results.csv and
    latest.md written one after the other (with the plots in between, seconds) left, on a
    second Ctrl-C or a failure half-way, a report of the previous run beside the data of this
    one."""
    tmps = []
    try:
        for path, text in files.items():
            tmp = path.with_name(path.name + ".tmp")
            tmps.append(tmp)
            with open(tmp, "w", newline="") as f:
                f.write(text)
        for path, tmp in zip(files, tmps):
            tmp.replace(path)
    finally:
        for tmp in tmps:
            if tmp.exists():
                tmp.unlink()
