"""What one invocation of the driver asks for (built by cli.py from the command line)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .cap import CapRule

# Per mode: runs (timed runs per configuration and group, the median's sample), min_runs,
# reps (timed runs per process: a process generates the input, warms up and checks once, then
# times reps runs; a configuration's runs are split into blocks of reps, and the blocks of a
# group's configurations alternate A B C A B C, so that noise is shared), policies (default weft policies; "all" =
# every policy `weft-bench-weft --policy list` names), timeout (s per process, every system),
# steal (the steal-cost variant's L:R), budget (s the whole run should stay under: extra
# weft policies are left out beyond 80 % of it unless --policies is given), cap_factor,
# cap_seconds and cap_floor (the time cap of a non-serial run, see cap.py).
MODES = {
    "test": {"runs": 1, "min_runs": 1, "reps": 1, "policies": ["default"], "timeout": 60,
             "steal": "1000:20", "budget": None,
             # test mode checks every configuration's checksum: no cap
             "cap_factor": 0.0, "cap_seconds": None, "cap_floor": 1.0},
    "quick": {"runs": 6, "min_runs": 5, "reps": 3, "policies": ["default", "lazy-bf", "heartbeat"],
              "timeout": 60, "steal": "30000:2000", "budget": 600,
              "cap_factor": 10.0, "cap_seconds": 10.0, "cap_floor": 1.0},
    "full": {"runs": 6, "min_runs": 5, "reps": 3, "policies": ["all"], "timeout": 3600,
             "steal": "30000:20000", "budget": None,
             "cap_factor": 10.0, "cap_seconds": 300.0, "cap_floor": 1.0},
}


# Kernel groups one asks for by name in --kernels; their kernels are left out of "all" (the
# default).  nar: NAR's space benchmarks (issue 11; bench/KERNELS.md): quick mode with them would
# pass its 10-minute budget (they add about a minute to a quick run that already takes about
# nine), so they are opt-in: --kernels nar, or --kernels all,nar.
KERNEL_GROUPS = {"nar": ["mmtemp", "strassen", "dtree", "fft", "meshspmv"]}
GROUPED_KERNELS = {k for ks in KERNEL_GROUPS.values() for k in ks}


def expand_kernels(names):
    """--kernels names with the groups replaced by their kernels ("all" is kept, resolved
    against the binaries' lists later), duplicates removed."""
    out = []
    for n in names:
        out += KERNEL_GROUPS.get(n, [n])
    return list(dict.fromkeys(out))


@dataclass
class Options:
    mode: str
    runs: int
    argv: list
    # None: every kernel some binary lists (`--kernel list`) but the opt-in groups'; else the
    # names asked for, groups expanded, where "all" stands for what None means
    kernels: Optional[list]
    systems: list
    # requested weft columns: "default", names, "all"; resolved against --policy list
    policies_requested: list
    policies_explicit: bool          # --policies was given (the budget drops none then)
    workers: list
    steal: Optional[tuple]           # (L, R) of the steal-cost variant, or None
    steal_auto: bool                 # --steal-cost auto: only when stress is a kernel
    steal_workers: list
    timeout: float
    cap: CapRule
    out: Path
    bin_map: dict = field(default_factory=dict)
    bin_dir: Optional[str] = None
    build_dir: Optional[str] = None
    clang_build_dir: Optional[str] = None
    rust_dir: Optional[str] = None
    no_plots: bool = False
    dry_run: bool = False
    reps: int = 1                    # timed runs per process (at most runs)

    @property
    def blocks(self) -> list:
        """The timed runs of each process of one configuration in one group, in order:
        runs split into blocks of reps (the last one shorter when reps does not divide)."""
        per = max(1, min(self.reps, self.runs))
        return [min(per, self.runs - b) for b in range(0, self.runs, per)]

    @property
    def budget(self):
        return MODES[self.mode]["budget"]


def parse_steal(text):
    """"L:R" with positive integers -> (L, R), else None."""
    parts = text.split(":")
    if len(parts) != 2 or not all(x.isdigit() and int(x) > 0 for x in parts):
        return None
    return int(parts[0]), int(parts[1])


def steal_variant(steal):
    return f"steal-cost:{steal[0]}:{steal[1]}"


def steal_of_variant(variant):
    """(L, R) of a "steal-cost:L:R" variant, else None."""
    return parse_steal(variant.split(":", 1)[1]) if ":" in variant else None
