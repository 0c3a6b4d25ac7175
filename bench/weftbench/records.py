"""The driver's typed records: configurations, plan groups, single runs and per-cell medians.

A *configuration* is one column of the report (a system, for weft a policy); a *group* is one
kernel (and variant) at one worker count with the configurations run side by side in it; a
*run* is one process of one configuration; a *cell* is everything about one configuration in
one group (its runs' medians and its status).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Optional

# Outcomes of a run and of a cell (see cli.py's module text for what each means)
OK, MISSING, TIMEOUT, OVER_CAP = "ok", "missing", "timeout", "over cap"
WRONG, FAILED = "WRONG", "FAILED"
FAILURES = (WRONG, FAILED)


@dataclass(frozen=True)
class Config:
    """One column: a system, for weft a policy ("default" = no --policy), for OpenMP a
    schedule variant of the flat-loop kernels (None = the kernel as tabled: schedule(static);
    "dynamic" = `--variant dynamic`, KERNELS.md "Variants")."""
    system: str
    policy: Optional[str] = None
    variant: Optional[str] = None

    @property
    def label(self) -> str:
        if self.system == "weft":
            return f"weft:{self.policy}"
        return f"{self.system}:{self.variant}" if self.variant else self.system

    @property
    def weft_policy(self) -> Optional[str]:
        return self.policy if self.system == "weft" else None

    def __repr__(self) -> str:
        return self.label


@dataclass
class Group:
    """One kernel (and variant) at one worker count: its configurations run round-robin."""
    kernel: str
    variant: str
    workers: int
    configs: list

    @property
    def key(self) -> tuple:
        return (self.kernel, self.variant, self.workers)

    @property
    def title(self) -> str:
        return f"{self.kernel}{' ' + self.variant if self.variant else ''} P={self.workers}"


def _dict_without(obj, optional: tuple) -> dict:
    """obj's fields as a dict; the fields named in optional only when set (not None)."""
    out = {}
    for f in fields(obj):
        v = getattr(obj, f.name)
        if f.name in optional and v is None:
            continue
        out[f.name] = v
    return out


@dataclass
class RunRecord:
    """One process of one configuration (results.json's "runs")."""
    seq: int
    kernel: str
    variant: str
    workers: int
    system: str
    policy: Optional[str]
    label: str
    run: int
    status: str
    rc: Optional[int]
    wall_s: float
    reason: str
    command: str
    cap_s: Optional[float] = None        # the time cap this run's process ran under
    # the process that timed this run (one per block of reps runs): its wall seconds, and this
    # run's place in it; wall_s above is this run's share (process_wall_s / runs it timed)
    process_wall_s: Optional[float] = None
    rep: int = 0
    # the timed runs this record stands for: 1, or the whole block when the process failed or
    # was stopped before printing a line per run (one record for all of them)
    runs_covered: int = 1
    # from the binary's JSON line, when it printed one
    time_s: Optional[float] = None
    checksum: Optional[str] = None
    ok: Optional[bool] = None
    stats: Optional[dict] = None
    leaf_time_s: Optional[float] = None
    reps: Optional[int] = None
    leaf_iterations: Optional[int] = None
    height: Optional[int] = None
    reported_policy: Optional[str] = None
    stderr: Optional[str] = None

    JSON_KEYS = ("time_s", "checksum", "ok", "stats", "leaf_time_s", "reps",
                 "leaf_iterations", "height")

    def take_json(self, j: dict) -> None:
        for k in self.JSON_KEYS:
            if k in j:
                setattr(self, k, j[k])
        self.reported_policy = j.get("policy")

    def to_dict(self) -> dict:
        return _dict_without(self, ("cap_s", "process_wall_s") + self.JSON_KEYS +
                             ("reported_policy", "stderr"))


@dataclass
class Cell:
    """One configuration in one group: medians over its runs, or why there are none."""
    kernel: str
    variant: str
    workers: int
    label: str
    system: str
    policy: Optional[str]
    status: str
    n_ok: int = 0
    n_runs: int = 0
    median_s: Optional[float] = None
    min_s: Optional[float] = None
    max_s: Optional[float] = None
    times_s: list = field(default_factory=list)
    reason: str = ""
    cap_s: Optional[float] = None            # set when the cell is over its time cap
    reported_policy: Optional[str] = None
    stats_median: Optional[dict] = None
    # steal-cost variant
    steal_cost_ns: Optional[float] = None
    leaf_ns: Optional[float] = None
    steals_per_tree: Optional[float] = None
    # ratios to the serial elision (plain kernels only)
    ts_s: Optional[float] = None
    t_over_ts: Optional[float] = None
    speedup: Optional[float] = None

    OPTIONAL = ("cap_s", "reported_policy", "stats_median", "steal_cost_ns", "leaf_ns",
                "steals_per_tree", "ts_s", "t_over_ts", "speedup")

    @property
    def key(self) -> tuple:
        return (self.kernel, self.variant, self.workers, self.label)

    @property
    def is_ok(self) -> bool:
        return self.status == OK

    def stat(self, name: str):
        return (self.stats_median or {}).get(name)

    def to_dict(self) -> dict:
        d = _dict_without(self, self.OPTIONAL)
        # the steal-cost cells always carry their figures, the others their Ts
        for k in (("steal_cost_ns", "leaf_ns") if self.variant else ("ts_s",)):
            d.setdefault(k, None)
        return d
