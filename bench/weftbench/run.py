"""Running a plan: every group's configurations round-robin (A B C A B C ...), `runs`
times, so that ratios are measured side by side on a shared, noisy machine (SPEC.md §8)."""
from __future__ import annotations

import shlex
import statistics

from . import records as R
from .binaries import classify, run_binary, tail


class Runner:
    def __init__(self, opts, inv, plan, progress):
        self.opts, self.inv, self.plan, self.progress = opts, inv, plan, progress
        self.runs = []            # RunRecord, in the order they ran
        self.seq = 0
        self.interrupted = False
        self.serial_walls = {}    # kernel -> wall seconds of its ok serial runs

    def pending(self, gi, r, ci):
        """(group, config) of every run still to do from run r of config ci in group gi on."""
        groups, runs = self.plan.groups, self.opts.runs
        for gj in range(gi, len(groups)):
            g = groups[gj]
            r0 = r if gj == gi else 0
            for rr in range(r0, runs):
                c0 = ci if gj == gi and rr == r0 else 0
                for c in g.configs[c0:]:
                    if self.plan.available(c, g, self.inv):
                        yield g, c

    def execute(self):
        for gi, g in enumerate(self.plan.groups):
            for r in range(self.opts.runs):
                for ci, cfg in enumerate(g.configs):
                    if not self.plan.available(cfg, g, self.inv):
                        continue
                    self.progress.show(f"{g.title} {cfg.label} run {r + 1}/{self.opts.runs}",
                                       lambda: self.pending(gi, r, ci))
                    rec = self.run_one(cfg, g, r)
                    self.progress.record(rec)
                    self.react(rec, cfg, g)
            self.progress.show(f"{g.title} done", lambda: self.pending(gi + 1, 0, 0),
                               force=True)

    def serial_basis(self, group):
        """The serial wall time the cap is relative to: same kernel, plain variant."""
        walls = self.serial_walls.get(group.kernel)
        return statistics.median(walls) if walls and not group.variant else None

    def args_for(self, cfg, g):
        # the serial elision runs on one thread whatever the group's worker count (its
        # binary may refuse --workers > 1); it still runs in every group, side by side
        workers = 1 if cfg.system == "serial" else g.workers
        args = ["--kernel", g.kernel, "--size", self.opts.mode, "--workers", str(workers)]
        if cfg.system == "weft" and cfg.policy != "default":
            args += ["--policy", cfg.policy]
        if g.variant:
            args += ["--variant", g.variant]
        return args

    def run_one(self, cfg, g, r) -> R.RunRecord:
        args = self.args_for(cfg, g)
        basis = self.serial_basis(g)
        cap = None if cfg.system == "serial" else self.opts.cap.limit(basis)
        if cap is not None and cap >= self.opts.timeout:
            cap = None  # --timeout is the tighter limit: a kill is a timeout
        limit = cap if cap is not None else self.opts.timeout
        done = run_binary(self.inv.binaries[cfg.system], args, limit)
        status, j, reason = classify(done, limit)
        if status == R.TIMEOUT and cap is not None:
            status, reason = R.OVER_CAP, self.opts.cap.reason(cap, basis)
        self.seq += 1
        rec = R.RunRecord(
            seq=self.seq, kernel=g.kernel, variant=g.variant, workers=g.workers,
            system=cfg.system, policy=cfg.weft_policy, label=cfg.label, run=r,
            status=status, rc=done.rc, wall_s=round(done.wall_s, 6), reason=reason,
            command=shlex.join([str(self.inv.binaries[cfg.system])] + args), cap_s=cap)
        if j:
            rec.take_json(j)
        if status != R.OK and done.stderr:
            rec.stderr = tail(done.stderr, 1000)
        if cfg.system == "serial" and status == R.OK and not g.variant:
            self.serial_walls.setdefault(g.kernel, []).append(done.wall_s)
        self.runs.append(rec)
        return rec

    def react(self, rec, cfg, g):
        """Skips what a missing, timed-out or over-cap run says need not run again."""
        st, say = rec.status, self.progress.say
        key = (cfg.label, g.kernel, g.variant)
        if st == R.MISSING:
            self.plan.skipped[key + (None,)] = (R.MISSING, rec.reason)
            say(f"missing: {cfg.label} {g.kernel}"
                f"{' ' + g.variant if g.variant else ''}: {rec.reason}")
        elif st == R.TIMEOUT:
            self.plan.skipped[key + (None,)] = (R.TIMEOUT, rec.reason)
            say(f"timeout: {cfg.label} {g.title}: {rec.reason}; skipped for the rest of "
                f"this kernel")
        elif st == R.OVER_CAP:
            self.plan.skipped[key + (g.workers,)] = (R.OVER_CAP, rec.reason)
            say(f"over cap: {cfg.label} {g.title}: {rec.reason}; skipped for the rest of "
                f"this worker count")
        elif st in R.FAILURES:
            what = "WRONG CHECKSUM" if st == R.WRONG else "FAILED"
            say(f"*** {what}: {cfg.label} {g.kernel} P={g.workers}: {rec.reason}\n"
                f"    {rec.command}")
