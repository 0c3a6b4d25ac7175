#!/usr/bin/env python3
"""Heartbeat studies on the benchmark binaries (issue 3):

  bound   HB Fig. 8 column 5: on every kernel, the 1-worker time of `heartbeat` with promotion on
          (the library's default N: WEFT_HEARTBEAT_US unset; its value is read from
          src/config_resolve.hpp for the table) against the same run with promotion off (N = 10^8 us: no beat
          in any run), alternating runs, medians.  HB Theorem 2 bounds the difference by tau/N.
  sweep   HB Fig. 7: run time against N at 2 workers, a PNG plot.

  tools/heartbeat_study.py bound [--size quick] [--runs 5] [--kernels a,b] [--out DIR]
  tools/heartbeat_study.py sweep [--size quick] [--runs 5] [--kernels a,b] [--ns 3,10,...] [--out DIR]
"""
import argparse
import json
import os
import re
import statistics
import sys
from pathlib import Path

from checked_run import checked, count, counts, field, stop

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "build" / "bench" / "weft-bench-weft"
OFF_US = 100_000_000


def default_heartbeat_us():
    """The library's default heartbeat period N in us, from its source of truth
    (src/config_resolve.hpp, default_heartbeat), or None if it cannot be read there."""
    try:
        text = (REPO / "src" / "config_resolve.hpp").read_text()
    except OSError:
        return None
    m = re.search(r"default_heartbeat\{(\d+)\}", text)
    return int(m.group(1)) if m else None


def run(kernel, size, workers, n_us):
    """One run; n_us None: the library's default period (WEFT_HEARTBEAT_US unset)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEFT_")}
    if n_us is not None:
        env["WEFT_HEARTBEAT_US"] = str(n_us)
    argv = [BIN, "--kernel", kernel, "--size", size, "--workers", workers, "--policy", "heartbeat"]
    out = checked(argv, env)
    try:
        rec = json.loads(out.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        stop(argv, "its last line is not the benchmark's JSON line", out)
    if not field(argv, rec, "ok"):
        sys.exit(f"wrong checksum: {kernel} N={n_us}")
    return field(argv, rec, "time_s"), field(argv, rec, "stats", "promotions")


def kernels(arg):
    if arg:
        return arg.split(",")
    return checked([BIN, "--kernel", "list"]).split()


def bound(a):
    rows = []
    for k in kernels(a.kernels):
        on, off, prom = [], [], []
        for _ in range(a.runs):
            t, p = run(k, a.size, 1, None)
            on.append(t)
            prom.append(p)
            off.append(run(k, a.size, 1, OFF_US)[0])
        m_on, m_off = statistics.median(on), statistics.median(off)
        rows.append((k, m_off, m_on, statistics.median(prom), 100 * (m_on / m_off - 1)))
        print(f"{k:10s} off {m_off:.4f}s on {m_on:.4f}s promotions {statistics.median(prom):.0f} "
              f"difference {rows[-1][4]:+.1f}%", flush=True)
    n = default_heartbeat_us()
    n_txt = f"N = {n} us, the default" if n is not None else "the default N"
    lines = [f"| kernel | promotion off (s) | on, {n_txt} (s) | promotions | on / off |",
             "|---|---|---|---|---|"]
    for k, off_, on_, p, d in rows:
        lines.append(f"| {k} | {off_:.4f} | {on_:.4f} | {p:.0f} | {d:+.1f}% |")
    return "\n".join(lines)


def sweep(a):
    ns = a.ns
    ks = kernels(a.kernels)
    table = {k: {} for k in ks}
    for k in ks:
        for _ in range(a.runs):
            for n in ns:
                table[k].setdefault(n, []).append(run(k, a.size, 2, n)[0])
        print(k, {n: round(statistics.median(v), 4) for n, v in table[k].items()}, flush=True)
    lines = ["| kernel | " + " | ".join(f"N={n}us" for n in ns) + " |", "|---|" + "---|" * len(ns)]
    for k in ks:
        lines.append(f"| {k} | " + " | ".join(f"{statistics.median(table[k][n]):.4f}" for n in ns) + " |")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for k in ks:
            best = min(statistics.median(v) for v in table[k].values())
            ax.plot(ns, [statistics.median(table[k][n]) / best for n in ns], marker="o", label=k)
        ax.set_xscale("log")
        ax.set_xlabel("heartbeat period N (us)")
        ax.set_ylabel("run time / best run time (2 workers)")
        ax.set_title("heartbeat: run time vs N (HB Fig. 7), 2 workers")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        out = Path(a.out) / "heartbeat_sweep.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.tight_layout()
        fig.savefig(out, dpi=110)
        lines.append(f"\n![run time vs N](heartbeat_sweep.png)")
    except ImportError:
        lines.append("\n(matplotlib missing: no plot)")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("study", choices=["bound", "sweep"])
    p.add_argument("--size", default="quick")
    p.add_argument("--runs", type=count, default=5)
    p.add_argument("--kernels", default="")
    p.add_argument("--ns", type=counts, default="3,10,30,100,300,1000,3000")
    p.add_argument("--out", default=str(REPO / "docs" / "results"))
    a = p.parse_args()
    print((bound if a.study == "bound" else sweep)(a))


if __name__ == "__main__":
    main()
