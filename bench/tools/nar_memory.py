#!/usr/bin/env python3
"""Space report of issue 11 ("What it must show"): docs/results/space.md.

    python3 bench/tools/nar_memory.py [--part all|space|rss] [--size quick] [--runs 5]
                                      [--workers 1,2,8] [--build-dir build]
                                      [--clang-build-dir build-clang]
                                      [--rust-dir bench/rust/target/release] [--bin-dir DIR]
                                      [--timeout 300] [--out docs/results]

space: every NAR kernel (mmtemp, strassen, dtree, fft, meshspmv) under every policy
       `weft-bench-weft --policy list` names (so new policies appear by themselves), at each
       worker count: live_threads_peak (NAR Fig 7.1) and heap_peak_bytes (Fig 7.4) with S1 =
       the heap peak under --policy serial, and time_s; medians of --runs timed runs.
rss:   the UTS binomial tree (uts-bin) in every binary found (serial, weft under each policy,
       tbb, omp-gcc, omp-clang, rayon, chili): peak RSS (GNU time's %M) as a multiple of
       the serial binary's, median of --runs processes.
The raw samples go to <out>/space.json; --part space|rss re-measures one part and keeps the
other from that file.  Binaries are found as bench/run.py finds them.
"""
from __future__ import annotations

import argparse
import math
import datetime
import json
import shlex
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from weftbench.binaries import (REPO, SYSTEMS, find_binary,  # noqa: E402
                                probe_default_policy, read_name_list)
from weftbench.machine import machine_info  # noqa: E402
from weftbench import space_measure as M  # noqa: E402
from weftbench.space_report import render  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bench/tools/nar_memory.py",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--part", choices=["all", "space", "rss"], default="all")
    p.add_argument("--size", choices=["test", "quick", "full"], default="quick")
    p.add_argument("--runs", type=int, default=5, help="timed runs (space) or processes "
                   "(rss) per configuration; medians are taken (default 5)")
    p.add_argument("--workers", default="1,2,8", help="comma list (default 1,2,8)")
    p.add_argument("--kernels", default=",".join(M.NAR_KERNELS),
                   help="NAR kernels of the space part (default: all five)")
    p.add_argument("--build-dir", default=None)
    p.add_argument("--clang-build-dir", default=None)
    p.add_argument("--rust-dir", default=None)
    p.add_argument("--bin-dir", default=None)
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per process")
    p.add_argument("--out", default=str(REPO / "docs" / "results"))
    a = p.parse_args(argv)
    try:
        a.workers = sorted({int(x) for x in a.workers.split(",") if x.strip()})
    except ValueError:
        p.error(f"--workers must be a comma list of integers (got '{a.workers}')")
    if not a.workers or a.workers[0] < 1:
        p.error("--workers: every worker count must be at least 1")
    if a.runs < 1:
        p.error("--runs must be at least 1")
    # as bench/run.py's --timeout: -1 or 0 killed every process at once, and a report of timeouts
    # replaced the previous one
    if not math.isfinite(a.timeout) or a.timeout <= 0:
        p.error(f"--timeout must be a positive finite number of seconds (got {a.timeout:g})")
    a.kernels = [k.strip() for k in a.kernels.split(",") if k.strip()]
    if not a.kernels:
        p.error("--kernels is empty")
    return a


def say(msg):
    print(msg, file=sys.stderr, flush=True)


def binaries(a):
    opts = SimpleNamespace(bin_map={}, bin_dir=a.bin_dir, build_dir=a.build_dir,
                           clang_build_dir=a.clang_build_dir, rust_dir=a.rust_dir)
    found = {}
    for s in SYSTEMS:
        path, reason = find_binary(s, opts)
        if path is None:
            say(f"missing: {reason}")
        else:
            found[s] = path
    return found


def part_meta(a, **extra):
    return {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "size": a.size, "runs": a.runs, "workers": a.workers, "machine": machine_info(),
            **extra}


def measure_space(a, bins, policies):
    weft = bins["weft"]
    default = probe_default_policy(weft, a.kernels[0])
    say(f"space: {len(a.kernels)} kernels x {len(policies)} policies x p={a.workers}")
    cells = M.weft_space(weft, policies, a.kernels, a.workers, a.size, a.runs, a.timeout, say)
    return {"meta": part_meta(a, kernels=a.kernels, policies=policies, default_policy=default),
            "cells": cells}


def measure_rss(a, bins, policies):
    say(f"rss: {M.UTS_KERNEL} in {', '.join(bins)} x p={a.workers}")
    cells = M.rss(bins, policies, a.workers, a.size, a.runs, a.timeout, say)
    return {"meta": part_meta(a, kernel=M.UTS_KERNEL), "cells": cells}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    a = parse_args(argv)
    bins = binaries(a)
    if "weft" not in bins:
        say("bench/tools/nar_memory.py: error: weft-bench-weft not found "
            "(build it: scripts/build-bench.sh)")
        return 2
    policies, why = read_name_list(bins["weft"], "--policy")
    if policies is None:
        say(f"bench/tools/nar_memory.py: error: {why}")
        return 2
    # a kernel weft-bench-weft does not have is a typo: every cell of it would read "n/i" (exit
    # 2, as for a policy the binary does not implement) in a report that exits 0
    known, _ = read_name_list(bins["weft"], "--kernel")
    unknown = [k for k in a.kernels if known is not None and k not in known]
    if unknown:
        say(f"bench/tools/nar_memory.py: error: --kernels: weft-bench-weft has no kernel "
            f"{', '.join(repr(k) for k in unknown)} (it has: {', '.join(known)})")
        return 2
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    data_path = out / "space.json"
    data = json.loads(data_path.read_text()) if data_path.exists() and a.part != "all" else {}
    if a.part in ("all", "space"):
        data["weft_space"] = measure_space(a, bins, policies)
    if a.part in ("all", "rss"):
        data["rss"] = measure_rss(a, bins, policies)
    if a.part == "all" or "command" not in data:
        data["command"] = shlex.join(["python3", "bench/tools/nar_memory.py"] + argv)
    data_path.write_text(json.dumps(data, indent=1) + "\n")
    (out / "space.md").write_text(render(data))
    say(f"report: {out / 'space.md'}")
    bad = [c for part in ("weft_space", "rss") for c in data.get(part, {}).get("cells", [])
           if c["status"] in ("wrong", "failed")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
