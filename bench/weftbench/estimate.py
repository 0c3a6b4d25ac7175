"""How long a plan takes, before it runs: for the estimate printed at the start, the budget
of quick mode and the progress line.

A run's wall time is estimated as (the serial binary's wall time of the kernel at this
size) x (the configuration's ratio to it). The serial time comes from a previous
results.json of the same mode in --out, else from the built-in guesses below; the ratio
from a previous results.json of any mode (ratios carry over between sizes far better than
times), else RATIO_GUESS. A non-serial configuration whose estimate is over its time cap is
counted as one capped run per worker count (it is stopped at the cap and skipped for the
rest of that worker count).
"""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field

from . import records as R
from .fmt import fmt_dur
from .options import steal_of_variant

# Serial binary wall seconds per timed run (a process's wall time, with its start, input
# generation, warm-up except at full size and in-process check, shared among the timed runs
# it does: --reps of the mode), per kernel, before anything was measured here.
# quick (3 runs a process): the serial binary's CPU time on the 2-core development machine
# (CPU, not wall, because the machine was shared), (setup + 4 x kernel) / 3 plus 5 ms for the
# process start. full (3 runs a process, no warm-up): (setup + 3 x kernel) / 3 from the
# serial binary's CPU time at --reps 1 and 2 at full size; mergesort's 10^8 keys dominate a
# full run. flat_spmv, stencil, stream: the quick figures are wall times of one process of 3
# runs over 3 on the loaded machine (load average ~4); the full ones are estimated from them.
SERIAL_GUESS_S = {
    "test": {"default": 0.03},
    "quick": {"fib": 0.032, "nqueens": 0.115, "stress": 0.135, "mm": 0.048, "ssf": 0.042,
              "spmv": 0.060, "bfs": 0.147, "floyd": 0.068, "uts-geo": 0.166, "uts-bin": 0.142,
              "tsp": 0.024, "mergesort": 0.083, "quickhull": 0.072, "mmtemp": 0.057,
              "strassen": 0.047, "dtree": 0.093, "fft": 0.043, "meshspmv": 0.05,
              "flat_spmv": 0.12, "stencil": 0.16, "stream": 0.12, "default": 0.1},
    "full": {"fib": 0.092, "nqueens": 3.1, "stress": 0.81, "mm": 0.11, "ssf": 0.035,
             "spmv": 0.29, "bfs": 0.49, "floyd": 1.67, "uts-geo": 2.03, "uts-bin": 0.65,
             "tsp": 0.02, "mergesort": 31.7, "quickhull": 0.57, "mmtemp": 0.26,
             "strassen": 0.27, "dtree": 1.17, "fft": 0.5, "meshspmv": 0.35,
             "flat_spmv": 0.6, "stencil": 0.65, "stream": 0.45, "default": 2.0},
}
RATIO_GUESS = 2.0        # a configuration's wall time over the serial binary's
STEAL_NS_PER_ITER = 1.5  # the stress leaf loop: one dependent multiply-add per iteration


@dataclass
class Prior:
    """Mean wall seconds per (kernel, variant, label, workers) of a previous results.json."""
    mode: str = ""
    walls: dict = field(default_factory=dict)

    @property
    def empty(self):
        return not self.walls


def load_prior(out_dir) -> Prior:
    try:
        with open(out_dir / "results.json") as f:
            old = json.load(f)
        acc = {}
        for r in old.get("runs", []):
            if r.get("status") in (R.OK, R.WRONG, R.OVER_CAP) and r.get("wall_s"):
                key = (r["kernel"], r.get("variant", ""), r["label"], r["workers"])
                acc.setdefault(key, []).append(r["wall_s"])
        return Prior(old.get("meta", {}).get("mode", ""),
                     {k: statistics.fmean(v) for k, v in acc.items()})
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return Prior()


class Estimator:
    """Costs in seconds per timed run: a process of R runs costs R x per_run (its setup
    shared among them, as results.json's wall_s shares it); its cap bounds the process."""

    def __init__(self, mode, cap, runs, prior: Prior, reps=1):
        self.mode, self.cap, self.runs, self.prior = mode, cap, runs, prior
        self.reps = max(1, min(reps, runs))
        self.same_mode = prior.mode == mode
        self._per_run = {}  # memo: the progress line asks for every run still to do

    def _prior_mean(self, kernel, variant, label, workers=None):
        xs = [v for (k, vv, lab, w), v in self.prior.walls.items()
              if (k, vv, lab) == (kernel, variant, label) and workers in (None, w)]
        return statistics.fmean(xs) if xs else None

    def serial_wall(self, kernel):
        if self.same_mode:
            t = self._prior_mean(kernel, "", "serial")
            if t:
                return t
        g = SERIAL_GUESS_S[self.mode]
        return g.get(kernel, g["default"])

    def ratio(self, kernel, label, workers):
        # a weft policy not measured before is estimated like weft's default policy
        # (and an OpenMP schedule column like that system's plain column)
        similar = [label] + (["weft:default"] if label.startswith("weft:") else
                             [label.split(":")[0]] if ":" in label else [])
        for lab in similar:
            for w in (workers, None):
                t = self._prior_mean(kernel, "", lab, w)
                s = self._prior_mean(kernel, "", "serial", w)
                if t and s:
                    return t / s
        return RATIO_GUESS

    def steal_run(self, kernel, variant, label, workers):
        if self.same_mode:
            t = self._prior_mean(kernel, variant, label, workers)
            if t:
                return t
        leaf, reps = steal_of_variant(variant) or (1000, 20)
        once = reps * leaf * STEAL_NS_PER_ITER * 1e-9
        # tree on P workers + leaf_time + check (2 leaves) + warm-up, + process start
        return (0 if self.mode == "full" else 1.2) * once + 3.2 * once + 0.05

    def per_run(self, kernel, variant, label, workers):
        """Estimated wall seconds of one run, before any cap."""
        key = (kernel, variant, label, workers)
        if key not in self._per_run:
            if variant:
                t = self.steal_run(kernel, variant, label, workers)
            else:
                t = self.serial_wall(kernel)
                if label != "serial":
                    t *= self.ratio(kernel, label, workers)
            self._per_run[key] = t
        return self._per_run[key]

    def cap_of(self, kernel, variant, label):
        """The cap of one process of self.reps runs (None: not capped)."""
        if label == "serial":
            return None
        return self.cap.limit(None if variant else self.serial_wall(kernel), self.reps)

    def over_cap(self, kernel, variant, label, workers):
        cap = self.cap_of(kernel, variant, label)
        return cap is not None and self.per_run(kernel, variant, label, workers) * \
            self.reps > cap

    def cost(self, kernel, variant, label, workers, n_runs):
        """Estimated seconds of n_runs runs of one configuration in one group."""
        if self.over_cap(kernel, variant, label, workers):
            return self.cap_of(kernel, variant, label) if n_runs else 0.0
        return self.per_run(kernel, variant, label, workers) * n_runs

    def plan_cost(self, plan, inv):
        """(number of runs, estimated seconds, seconds per kernel) of a whole plan."""
        total_runs, total_s, per_kernel = 0, 0.0, {}
        for g in plan.groups:
            for c in g.configs:
                if not plan.available(c, g, inv):
                    continue
                n = self.runs
                if self.over_cap(g.kernel, g.variant, c.label, g.workers):
                    n = 1
                s = self.cost(g.kernel, g.variant, c.label, g.workers, self.runs)
                total_runs += n
                total_s += s
                per_kernel[g.kernel] = per_kernel.get(g.kernel, 0.0) + s
        return total_runs, total_s, per_kernel


def trim_to_budget(plan, opts, inv, estimator, rebuild, say):
    """Unless --policies was given, leaves out the extra weft policies (last first) while
    the estimate exceeds 80 % of the mode's budget. rebuild(plan, policy) -> smaller plan."""
    budget = opts.budget
    while budget and not opts.policies_explicit and \
            estimator.plan_cost(plan, inv)[1] > 0.8 * budget:
        extra = [p for p in plan.policies if p != "default"]
        if not extra:
            break
        plan = rebuild(plan, extra[-1])
        say(f"weft:{extra[-1]} was left out to keep {opts.mode} mode within "
            f"{fmt_dur(budget)} (pass --policies to choose)")
    return plan
