#!/usr/bin/env python3
"""A fake benchmark binary that obeys the protocol of bench/KERNELS.md.

It computes nothing; it exists so that bench/run.py can be tested (bench/tests/) and
tried out without the real C++/Rust binaries:

    python3 bench/tools/fake_bench.py --install /tmp/fakebins      # weft-bench-<system> wrappers
    python3 bench/run.py --mode test --bin-dir /tmp/fakebins --out /tmp/fakeresults

Each wrapper runs `fake_bench.py --system SYS <protocol arguments>`. Behaviour is
deterministic and can be steered by a JSON file named by the environment variable
FAKE_BENCH_CONFIG (or by --config at install time, baked into the wrappers):

    {
      "log": "/tmp/calls.log",            # one line per timed invocation (see log_line)
      "kernels": ["fib", "stress"],        # what --kernel list prints (default: all 18)
      "kernels_of": {"rayon": ["fib"]},    # the same for one system (before "kernels")
      "missing_kernels": {"rayon": ["quickhull"]},   # exit 2 although listed (a failure)
      "unimplemented_policies": ["adf"],   # weft --policy adf: exit 2 "... not implemented"
      "policy_list": ["ws", "lazy-bf"],    # what weft --policy list prints (default: every
                                           # policy but the unimplemented ones)
      "no_policy_list": true,              # weft rejects --policy list (an older binary)
      "default_policy": "lazy-bf",         # the policy weft reports without --policy
      "wrong": [["tbb", "fib"]],           # [system, kernel]: exit 3 (wrong checksum)
      "bad_checksum": [["chili", "fib"]],  # exit 0, ok, but a checksum unlike the others'
      "crash": [["omp-gcc", "mm"]],        # exit 1 with a message
      "short_reps": [["tbb", "fib"]],      # with --reps R > 1: prints only R - 1 lines
      "no_variant": ["omp-clang"],         # systems that reject every --variant (exit 2)
      "schedule_kernels": ["stream"],      # the kernels whose OpenMP binaries accept
                                           # --variant dynamic (default: the flat-loop ones)
      "old_variant_list": ["omp-gcc"],     # systems whose --kernel list ignores --variant
      "times": {"serial/fib/1": [0.1, 0.3, 0.2]},   # time_s per call, cycled; key
                                           # system[:policy]/kernel/workers
      "base": {"fib": 0.01},               # serial seconds of a kernel (default 0.01)
      "factor": {"tbb": 1.5},              # T1/Ts of a system or "weft:policy"
      "steal_cost_ns": {"weft": 2000},     # per steal, for the steal-cost variant
      "sleep": 0.0                         # really sleep this fraction of time_s
    }

Exit codes as the protocol says: 0 ok, 2 bad arguments, 3 wrong checksum (1 for "crash").
"""
import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ALL_KERNELS = ["fib", "nqueens", "stress", "mm", "ssf", "spmv", "bfs", "floyd", "uts-geo",
               "uts-bin", "tsp", "mergesort", "quickhull",
               "mmtemp", "strassen", "dtree", "fft", "meshspmv"]  # the last five: group nar
FLAT_KERNELS = ["flat_spmv", "stencil", "stream"]  # not in ALL_KERNELS: asked for by name
SYSTEMS = ["serial", "weft", "tbb", "omp-gcc", "omp-clang", "rayon", "chili"]
OMP_SYSTEMS = ("omp-gcc", "omp-clang")
POLICIES = ["serial", "ws", "ws-ap", "wool", "lazy-df", "lazy-df2", "lazy-bf", "heartbeat",
            "adf", "dfd", "fifo"]
DEFAULT_FACTOR = {"serial": 1.0, "weft": 1.3, "tbb": 2.0, "omp-gcc": 4.0, "omp-clang": 3.0,
                  "rayon": 1.6, "chili": 1.2}
DEFAULT_STEAL_NS = {"weft": 3000.0, "tbb": 6000.0, "omp-gcc": 9000.0, "omp-clang": 8000.0,
                    "rayon": 4000.0, "chili": 2500.0}


class Usage(Exception):
    pass


def load_config():
    path = os.environ.get("FAKE_BENCH_CONFIG")
    if not path:
        return {}
    with open(path) as f:
        return json.load(f)


def parse(argv):
    opts = {}
    i = 0
    allowed = {"--system", "--kernel", "--size", "--workers", "--policy", "--variant",
               "--reps"}
    while i < len(argv):
        a = argv[i]
        if a not in allowed:
            raise Usage(f"unknown argument '{a}'")
        if i + 1 >= len(argv):
            raise Usage(f"{a} needs a value")
        opts[a[2:]] = argv[i + 1]
        i += 2
    return opts


def pair_in(lst, system, kernel):
    return any(list(p) == [system, kernel] for p in lst or [])


def count_calls(log, key):
    """How many earlier timed calls of this key the log holds (to cycle through times)."""
    if not log or not os.path.exists(log):
        return 0
    with open(log) as f:
        return sum(1 for line in f if line.split(" ")[0] == key)


def checksum_of(kernel, variant, workers, size):
    if variant.startswith("steal-cost"):
        # depends on the tree height, like the real variant
        h = math.ceil(math.log2(workers)) if workers > 1 else 0
        text = f"{kernel}/{variant}/{h}/{size}"
    else:
        text = f"{kernel}/{size}"
    return str(int(hashlib.sha256(text.encode()).hexdigest()[:12], 16))


def print_policy_list(system, cfg):
    """weft-bench-weft --policy list: one implemented policy a line."""
    if system != "weft":
        raise Usage("--policy is only for weft")
    if cfg.get("no_policy_list"):
        raise Usage("--kernel is required")
    unimplemented = cfg.get("unimplemented_policies", [])
    names = cfg.get("policy_list", [p for p in POLICIES if p not in unimplemented])
    print("\n".join(names))
    return 0


def check_variant(system, kernel, variant, cfg):
    """(L, R) of a steal-cost variant, None without a variant; Usage if refused."""
    if not variant:
        return None
    if variant == "dynamic" and has_schedule(system, kernel, cfg):
        return None
    if system in cfg.get("no_variant", []) or kernel != "stress" \
            or not variant.startswith("steal-cost:"):
        raise Usage(f"kernel {kernel} has no variant '{variant}'")
    parts = variant.split(":")
    if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts[1:]):
        raise Usage(f"bad variant '{variant}' (steal-cost:<L>:<R>)")
    return int(parts[1]), int(parts[2])


def has_schedule(system, kernel, cfg):
    """OpenMP's --variant dynamic (schedule(dynamic)) of a flat-loop kernel."""
    return system in OMP_SYSTEMS and system not in cfg.get("no_variant", []) and \
        kernel in cfg.get("schedule_kernels", FLAT_KERNELS)


def check_policy(system, policy, cfg):
    if policy is None:
        return
    if system != "weft":
        raise Usage("--policy is only for weft")
    if policy not in POLICIES:
        raise Usage(f"WEFT_POLICY/--policy: unknown policy '{policy}' "
                    f"(accepted: {', '.join(POLICIES)})")
    if policy in cfg.get("unimplemented_policies", []):
        raise Usage(f"policy '{policy}' is not implemented yet")


def request(o, cfg, kernels):
    """The timed run the arguments ask for; Usage if the real binary would refuse them."""
    r = SimpleNamespace(system=o.get("system", "serial"), kernel=o["kernel"],
                        policy=o.get("policy"), variant=o.get("variant", ""))
    for opt in ("size", "workers"):
        if opt not in o:
            raise Usage(f"--{opt} is required")
    r.size, w = o["size"], o["workers"]
    if r.size not in ("test", "quick", "full"):
        raise Usage(f"--size must be test, quick or full (got '{r.size}')")
    if not w.isdigit() or not 1 <= int(w) <= 4096:
        raise Usage(f"--workers must be between 1 and 4096 (got '{w}')")
    r.workers = int(w)
    reps = o.get("reps", "1")
    if not reps.isdigit() or int(reps) < 1:
        raise Usage(f"--reps must be a positive integer (got '{reps}')")
    r.reps = int(reps)
    if r.kernel not in kernels:
        raise Usage(f"unknown kernel '{r.kernel}' for system {r.system}")
    if r.kernel in cfg.get("missing_kernels", {}).get(r.system, []):
        raise Usage(f"kernel {r.kernel} is not implemented for system {r.system}")
    check_policy(r.system, r.policy, cfg)
    r.steal = check_variant(r.system, r.kernel, r.variant, cfg)
    return r


def steal_time(r, cfg, fkey):
    """time_s and the extra JSON fields of the steal-cost variant."""
    leaf_iters, reps = r.steal
    h = math.ceil(math.log2(r.workers)) if r.workers > 1 else 0
    leaf = leaf_iters * 1.5e-9
    costs = cfg.get("steal_cost_ns", {})
    cost_ns = costs.get(fkey, costs.get(r.system, DEFAULT_STEAL_NS.get(r.system, 0.0)))
    tree = leaf + (cost_ns * 1e-9 * (2 ** h - 1) if h > 0 else 0.0)
    if r.system == "serial":
        tree = leaf * 2 ** h
    return reps * tree, {"leaf_time_s": reps * leaf, "reps": reps,
                         "leaf_iterations": leaf_iters, "height": h}


def run_time(r, cfg, fkey, key, ncall):
    """time_s (and extra JSON fields) of this call: configured, or base x factor / speed."""
    if r.steal is not None:
        return steal_time(r, cfg, fkey)
    if key in cfg.get("times", {}):
        seq = cfg["times"][key]
        return seq[ncall % len(seq)], {}
    factors = cfg.get("factor", {})
    factor = factors.get(fkey, factors.get(r.system, DEFAULT_FACTOR[r.system]))
    w = r.workers
    speed = 1.0 if r.system == "serial" else min(w, 2) * 0.9 + 0.1 * (w == 1)
    jitter = 1.0 + 0.02 * ((ncall * 7) % 5 - 2)
    return cfg.get("base", {}).get(r.kernel, 0.01) * factor / speed * jitter, {}


def weft_stats(r, cfg, extra):
    """weft's counters: tasks = base x 1e8, 40 steals per worker (none at 1 worker); the
    steal-cost variant steals once per inner tree node."""
    tasks = int(cfg.get("base", {}).get(r.kernel, 0.01) * 1e8)
    stolen = 0 if r.workers == 1 else 40 * r.workers
    steals = extra["reps"] * (2 ** extra["height"] - 1) if r.steal is not None else stolen
    return {"joins": tasks // 2, "loop_iterations": tasks - tasks // 2,
            "promotions": stolen * 2, "steals": steals, "steal_attempts": stolen * 3,
            "leapfrogs": stolen // 4, "deque_checks": tasks // 10, "idle_ns": 1000 * stolen,
            "heap_peak_bytes": 0, "live_threads_peak": r.workers}


def answer_lists(o, cfg, kernels):
    """--kernel list / weft's --policy list: printed, exit code; None for a timed run."""
    system = o.get("system", "serial")
    if system not in SYSTEMS:
        raise Usage(f"unknown system '{system}'")
    if o.get("policy") == "list" and "kernel" not in o:
        return print_policy_list(system, cfg)
    if "kernel" not in o:
        raise Usage("--kernel is required")
    if o["kernel"] == "list":
        variant = o.get("variant", "")
        if variant and system not in cfg.get("old_variant_list", []):
            kernels = [k for k in kernels if variant == "dynamic" and has_schedule(system, k, cfg)
                       or k == "stress" and variant.startswith("steal-cost:")]
        print("\n".join(sorted(kernels)))
        return 0
    return None


def main(argv):
    cfg = load_config()
    try:
        o = parse(argv)
        system = o.get("system", "serial")
        kernels = cfg.get("kernels_of", {}).get(system, cfg.get("kernels", ALL_KERNELS))
        listed = answer_lists(o, cfg, kernels)
        if listed is not None:
            return listed
        r = request(o, cfg, kernels)
    except Usage as e:
        print(f"fake_bench: {e}", file=sys.stderr)
        return 2
    # like the real binary: without --policy, WEFT_POLICY picks the library default
    policy_name = (r.policy or os.environ.get("WEFT_POLICY") or
                   cfg.get("default_policy", "lazy-bf")) if system == "weft" else ""
    fkey = f"weft:{policy_name}" if system == "weft" else system
    log = cfg.get("log")
    key = f"{system}{':' + r.policy if r.policy else ''}/{r.kernel}/{r.workers}"
    times = []
    for _ in range(r.reps):  # one log line per timed run: the times cycle per run
        time_s, extra = run_time(r, cfg, fkey, key, count_calls(log, key))
        if cfg.get("sleep"):
            time.sleep(time_s * cfg["sleep"])
        if log:
            with open(log, "a") as f:
                f.write(f"{key} {r.variant or '-'}\n")
        times.append(time_s)
    if r.reps > 1 and pair_in(cfg.get("short_reps"), r.system, r.kernel):
        times.pop()
    return answer(r, cfg, policy_name, times, extra)


def answer(r, cfg, policy_name, times, extra):
    """Prints the JSON lines, one per timed run (or crashes, or reports a wrong checksum)
    like a real binary."""
    expected = checksum_of(r.kernel, r.variant, r.workers, r.size)
    checksum = expected
    if pair_in(cfg.get("bad_checksum"), r.system, r.kernel):
        checksum = str(int(checksum) + 1)
    if pair_in(cfg.get("crash"), r.system, r.kernel):
        print(f"fake_bench: error: simulated crash in {r.kernel}", file=sys.stderr)
        return 1
    wrong = pair_in(cfg.get("wrong"), r.system, r.kernel)
    for i, time_s in enumerate(times):
        line = {"kernel": r.kernel, "system": r.system, "policy": policy_name,
                "workers": r.workers, "size": r.size, "variant": r.variant, "time_s": time_s,
                "checksum": "12345" if wrong else checksum, "ok": not wrong,
                **({"rep": i} if r.reps > 1 else {}), **extra}
        if r.system == "weft":
            line["stats"] = weft_stats(r, cfg, extra)
        print(json.dumps(line, separators=(",", ":")))
    if wrong:
        print(f"fake_bench: kernel {r.kernel}: wrong checksum 12345 (expected {expected})",
              file=sys.stderr)
        return 3
    return 0


def install(directory, systems, config=None):
    """Writes one executable wrapper weft-bench-<system> per system into directory."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    me = Path(__file__).resolve()
    paths = []
    for s in systems:
        p = d / f"weft-bench-{s}"
        env = f"FAKE_BENCH_CONFIG='{Path(config).resolve()}' " if config else ""
        p.write_text(f"#!/bin/sh\n{env}exec '{sys.executable}' '{me}' --system {s} \"$@\"\n")
        p.chmod(0o755)
        paths.append(p)
    return paths


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--install":
        systems = SYSTEMS
        config = None
        rest = sys.argv[3:]
        while rest:
            if rest[0] == "--systems" and len(rest) > 1:
                systems = rest[1].split(",")
            elif rest[0] == "--config" and len(rest) > 1:
                config = rest[1]
            else:
                sys.exit(f"usage: {sys.argv[0]} --install DIR [--systems a,b] [--config FILE]")
            rest = rest[2:]
        for p in install(sys.argv[2], systems, config):
            print(p)
        sys.exit(0)
    sys.exit(main(sys.argv[1:]))
