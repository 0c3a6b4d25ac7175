#!/usr/bin/env python3
"""The memory threshold K against memory and time (NAR Fig 4.4 / 7.7): a NAR kernel under adf and
dfd at one worker count, K swept over powers of 4, with work stealing (dfd, K = inf) beside them.

    python3 bench/tools/k_sweep.py [--kernel mmtemp] [--size quick] [--workers 2] [--runs 5]
                                   [--ks 1000,4000,...] [--out docs/results]

Each (policy, K) is one process of `weft-bench-weft --reps RUNS` with WEFT_QUOTA=K; it reports the
median time and the median heap high-water mark (counters::heap_peak_bytes, through weft::malloc),
with S1 (the serial policy's high-water mark) beside them.  Writes <out>/k_sweep.md, .json and
.png (matplotlib, two panels: memory and time against K, log scale).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from weftbench.binaries import child_env  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent


def run(weft, kernel, size, workers, policy, runs, quota=None, timeout=600):
    env = child_env()
    if quota is not None:
        env["WEFT_QUOTA"] = str(quota)
    cmd = [str(weft), "--kernel", kernel, "--size", size, "--workers", str(workers), "--policy", policy,
           "--reps", str(runs)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise SystemExit(f"k_sweep: {' '.join(cmd)} (WEFT_QUOTA={quota}) failed: {p.stderr.strip()[:300]}")
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
    return {"time_s": statistics.median(x["time_s"] for x in lines),
            "heap_peak_bytes": statistics.median(x["stats"]["heap_peak_bytes"] for x in lines),
            "live_threads_peak": statistics.median(x["stats"]["live_threads_peak"] for x in lines),
            "quota_preemptions": statistics.median(x["stats"].get("quota_preemptions", 0) for x in lines),
            "dummy_threads": statistics.median(x["stats"].get("dummy_threads", 0) for x in lines)}


def positive_list(text):
    """--ks: a comma-separated list of positive integers (the quota K in bytes), refused otherwise
    with argparse's one-line error naming the option, not a traceback."""
    items = text.split(",")
    if not all(x.isdigit() and int(x) > 0 for x in items):
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of positive integers (e.g. 1000,4000)")
    return [int(x) for x in items]


def positive_int(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive integer")
    return int(text)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="bench/tools/k_sweep.py")
    ap.add_argument("--kernel", default="mmtemp")
    ap.add_argument("--size", default="quick")
    ap.add_argument("--workers", type=positive_int, default=2)
    ap.add_argument("--runs", type=positive_int, default=5)
    ap.add_argument("--ks", type=positive_list, default="250,1000,4000,16000,64000,256000,1024000,4096000")
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--out", default="docs/results")
    a = ap.parse_args(argv)
    weft = ROOT / a.build_dir / "bench" / "weft-bench-weft"
    if not Path(weft).exists():
        raise SystemExit(f"k_sweep: {weft} not found: run scripts/build-bench.sh")
    ks = a.ks
    serial = run(weft, a.kernel, a.size, 1, "serial", a.runs)
    rows = []
    for policy in ("adf", "dfd"):
        for k in ks:
            r = run(weft, a.kernel, a.size, a.workers, policy, a.runs, k)
            rows.append({"policy": policy, "K": k, **r})
            print(f"{policy} K={k}: {r}", file=sys.stderr)
    ws = run(weft, a.kernel, a.size, a.workers, "dfd", a.runs, "inf")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    data = {"kernel": a.kernel, "size": a.size, "workers": a.workers, "runs": a.runs, "serial": serial,
            "dfd_inf": ws, "rows": rows}
    (out / "k_sweep.json").write_text(json.dumps(data, indent=1))
    cmd = (f"python3 bench/tools/k_sweep.py --kernel {a.kernel} --size {a.size} --workers {a.workers} "
           f"--runs {a.runs} --ks {','.join(map(str, ks))}")
    md = [f"# K sweep: {a.kernel} ({a.size}) at {a.workers} workers (NAR Fig 4.4 / 7.7)", "",
          f"Command: `{cmd}` (after `scripts/build-bench.sh`). Medians of {a.runs} runs in one process per row;",
          "2 shared cores, so times are noisy; memory is deterministic up to the schedule.", "",
          f"S1 (serial policy's heap high-water mark): {serial['heap_peak_bytes']/2**20:.2f} MiB; "
          f"serial time {serial['time_s']*1e3:.1f} ms. dfd with K = inf (work stealing): "
          f"{ws['heap_peak_bytes']/2**20:.2f} MiB, {ws['time_s']*1e3:.1f} ms.", "",
          "| policy | K (bytes) | heap peak (MiB) | / S1 | time (ms) | T/Ts | quota preemptions | dummy threads | live threads |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        md.append(f"| {r['policy']} | {r['K']} | {r['heap_peak_bytes']/2**20:.2f} | "
                  f"{r['heap_peak_bytes']/serial['heap_peak_bytes']:.2f} | {r['time_s']*1e3:.1f} | "
                  f"{r['time_s']/serial['time_s']:.2f} | {r['quota_preemptions']:.0f} | {r['dummy_threads']:.0f} | "
                  f"{r['live_threads_peak']:.0f} |")
    md += ["", "![K sweep](k_sweep.png)", ""]
    (out / "k_sweep.md").write_text("\n".join(md))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, (m, t) = plt.subplots(1, 2, figsize=(10, 4))
        for policy, style in (("adf", "o-"), ("dfd", "s-")):
            rs = [r for r in rows if r["policy"] == policy]
            m.plot([r["K"] for r in rs], [r["heap_peak_bytes"] / 2**20 for r in rs], style, label=policy)
            t.plot([r["K"] for r in rs], [r["time_s"] * 1e3 for r in rs], style, label=policy)
        for ax, y, name in ((m, serial["heap_peak_bytes"] / 2**20, "S1 (serial)"), (t, serial["time_s"] * 1e3, "serial")):
            ax.axhline(y, color="gray", linestyle="--", label=name)
        m.axhline(ws["heap_peak_bytes"] / 2**20, color="red", linestyle=":", label="dfd K=inf (ws)")
        t.axhline(ws["time_s"] * 1e3, color="red", linestyle=":", label="dfd K=inf (ws)")
        for ax, yl in ((m, "heap high-water (MiB)"), (t, "time (ms)")):
            ax.set_xscale("log")
            ax.set_xlabel("K (bytes)")
            ax.set_ylabel(yl)
            ax.legend(fontsize=8)
        fig.suptitle(f"{a.kernel} ({a.size}), {a.workers} workers")
        fig.tight_layout()
        fig.savefig(out / "k_sweep.png", dpi=90)
    except ImportError:
        print("k_sweep: matplotlib missing: no plot (scripts/install-deps.sh installs it)", file=sys.stderr)
    print(out / "k_sweep.md")


if __name__ == "__main__":
    main()
