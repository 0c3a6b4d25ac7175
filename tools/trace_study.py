#!/usr/bin/env python3
"""Measures what tracing costs, and the heartbeat's achieved rate, on the benchmark kernels.

  tools/trace_study.py overhead BENCH_BIN [--kernels fib,nqueens,uts] [--workers 1,2]
                       [--policy lazy-bf] [--size quick] [--runs 5]
      Runs each kernel with tracing off and on (WEFT_TRACE to a temporary file), alternated
      (off on off on ...), RUNS times each; prints the median times and on/off.  The times are the
      binary's own time_s (the timed region): recording is measured, writing the file at pool
      destruction is not.
  tools/trace_study.py beats BENCH_BIN [--kernels ...] [--workers 1,2,4] [--size quick] [--runs 5]
      Under the heartbeat policy: beats requested and delivered (weft::counters), and the achieved
      rate delivered / requested, and delivered per second per worker against the target 1/N.

BENCH_BIN is build/bench/weft-bench-weft (cmake -DWEFT_BUILD_BENCH=ON).
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

from checked_run import checked, count, counts, field, stop


def run(binary, kernel, size, workers, policy, env_extra, untraced=False):
    env = dict(os.environ)
    if untraced:  # the "off" runs: a WEFT_TRACE of the caller's would trace them too (off = on, ratio 1)
        env.pop("WEFT_TRACE", None)
    env.update(env_extra)
    argv = [binary, "--kernel", kernel, "--size", size, "--workers", str(workers), "--policy", policy]
    out = checked(argv, env)
    try:
        rec = json.loads(out.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        stop(argv, "its last line is not the benchmark's JSON line", out)
    # the fields the tables read, checked here, where the command is known
    return {"time_s": field(argv, rec, "time_s"),
            "stats": {k: field(argv, rec, "stats", k) for k in (("heartbeats_requested", "heartbeats_delivered")
                                                                 if policy == "heartbeat" else ())}}


def overhead(a):
    print(f"# tracing off vs on: {a.policy}, size {a.size}, medians of {a.runs} alternated runs")
    print(f"{'kernel':<12}{'workers':>8}{'off ms':>10}{'on ms':>10}{'on/off':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.json")
        for kernel in a.kernels.split(","):
            for w in a.workers:
                off, on = [], []
                for _ in range(a.runs):
                    off.append(run(a.binary, kernel, a.size, w, a.policy, {}, untraced=True)["time_s"])
                    on.append(run(a.binary, kernel, a.size, w, a.policy, {"WEFT_TRACE": trace})["time_s"])
                m_off, m_on = statistics.median(off), statistics.median(on)
                print(f"{kernel:<12}{w:>8}{1000 * m_off:>10.2f}{1000 * m_on:>10.2f}{m_on / m_off:>9.3f}")
                sys.stdout.flush()


def beats(a):
    print(f"# heartbeat delivery: size {a.size}, medians of {a.runs} runs; period from WEFT_HEARTBEAT_US "
          f"or the default")
    print(f"{'kernel':<12}{'workers':>8}{'time ms':>10}{'requested':>11}{'delivered':>11}{'rate':>8}"
          f"{'deliv/s/worker':>16}")
    for kernel in a.kernels.split(","):
        for w in a.workers:
            rows = [run(a.binary, kernel, a.size, w, "heartbeat", {}) for _ in range(a.runs)]
            t = statistics.median(r["time_s"] for r in rows)
            req = statistics.median(r["stats"]["heartbeats_requested"] for r in rows)
            got = statistics.median(r["stats"]["heartbeats_delivered"] for r in rows)
            rate = statistics.median(r["stats"]["heartbeats_delivered"] / max(1, r["stats"]["heartbeats_requested"])
                                     for r in rows)
            print(f"{kernel:<12}{w:>8}{1000 * t:>10.2f}{req:>11.0f}{got:>11.0f}{rate:>8.2f}{got / t / w:>16.0f}")
            sys.stdout.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["overhead", "beats"])
    p.add_argument("binary")
    p.add_argument("--kernels", default="fib,nqueens,uts")
    p.add_argument("--workers", type=counts, default="1,2")
    p.add_argument("--policy", default="lazy-bf")
    p.add_argument("--size", default="quick")
    p.add_argument("--runs", type=count, default=5)
    a = p.parse_args()
    overhead(a) if a.what == "overhead" else beats(a)


if __name__ == "__main__":
    main()
