"""Running a plan: every group's configurations round-robin (A B C A B C ...), one process
per configuration and block, so that ratios are measured side by side on a shared, noisy
machine (SPEC.md §8). A block is one process timing several runs (`BIN --reps R`): the input
generation, warm-up and check are paid once per block, not once per timed run."""
from __future__ import annotations

import shlex
import statistics

from . import records as R
from .binaries import classify_reps, run_binary, tail


class Runner:
    def __init__(self, opts, inv, plan, progress):
        self.opts, self.inv, self.plan, self.progress = opts, inv, plan, progress
        self.runs = []            # RunRecord, in the order they ran
        self.seq = 0
        self.interrupted = False
        self.serial_walls = {}    # kernel -> wall seconds per timed run of its ok serial runs

    def pending(self, gi, b, ci):
        """(group, config) of every timed run still to do from block b of config ci in group
        gi on (a block of n runs yields n times)."""
        groups, blocks = self.plan.groups, self.opts.blocks
        for gj in range(gi, len(groups)):
            g = groups[gj]
            b0 = b if gj == gi else 0
            for bb in range(b0, len(blocks)):
                c0 = ci if gj == gi and bb == b0 else 0
                for c in g.configs[c0:]:
                    if self.plan.available(c, g, self.inv):
                        yield from [(g, c)] * blocks[bb]

    def execute(self):
        blocks = self.opts.blocks
        for gi, g in enumerate(self.plan.groups):
            first = 0
            for b, n in enumerate(blocks):
                for ci, cfg in enumerate(g.configs):
                    if not self.plan.available(cfg, g, self.inv):
                        continue
                    self.progress.show(f"{g.title} {cfg.label} runs {first + 1}-{first + n}"
                                       f"/{self.opts.runs}", lambda: self.pending(gi, b, ci))
                    recs = self.run_block(cfg, g, first, n)
                    for rec in recs:
                        self.progress.record(rec)
                    self.react(recs[-1], cfg, g)
                first += n
            self.progress.show(f"{g.title} done", lambda: self.pending(gi + 1, 0, 0),
                               force=True)

    def serial_basis(self, group):
        """The serial wall time per timed run the cap is relative to: same kernel, plain
        variant."""
        walls = self.serial_walls.get(group.kernel)
        return statistics.median(walls) if walls and not group.variant else None

    def args_for(self, cfg, g, reps=1):
        # the serial elision runs on one thread whatever the group's worker count (its
        # binary may refuse --workers > 1); it still runs in every group, side by side
        workers = 1 if cfg.system == "serial" else g.workers
        args = ["--kernel", g.kernel, "--size", self.opts.mode, "--workers", str(workers)]
        if cfg.system == "weft" and cfg.policy != "default":
            args += ["--policy", cfg.policy]
        if g.variant or cfg.variant:  # a variant group has no variant columns (plan.py)
            args += ["--variant", g.variant or cfg.variant]
        if reps > 1:
            args += ["--reps", str(reps)]
        return args

    def cap_for(self, cfg, g, reps):
        """(cap of one process of reps timed runs or None, the serial basis of a run)."""
        basis = self.serial_basis(g)
        cap = None if cfg.system == "serial" else self.opts.cap.limit(basis, reps)
        if cap is not None and cap >= self.opts.timeout:
            cap = None  # --timeout is the tighter limit: a kill is a timeout
        return cap, basis

    @staticmethod
    def must_run(cfg, g):
        """Whether exit 2 (bad arguments) is a failure rather than a missing cell: a plain run
        (no variant) of a kernel the binary listed, by a configuration that chose nothing the
        binary may lack (no weft policy but the default): nothing in its arguments can be
        unsupported, so a refusal is a broken setup (e.g. a bad WEFT_* value) and must not
        turn the whole column into "missing" with exit 0.  A listed but unimplemented weft
        policy, or a variant a binary lacks, stays a missing cell."""
        plain = not g.variant and not cfg.variant
        return plain and (cfg.system != "weft" or cfg.policy == "default")

    def run_block(self, cfg, g, first, reps) -> list:
        """One process timing `reps` runs (numbered first, first + 1, ...): a RunRecord per
        timed run, or one for the whole process when it did not answer with reps lines."""
        args = self.args_for(cfg, g, reps)
        cap, basis = self.cap_for(cfg, g, reps)
        limit = cap if cap is not None else self.opts.timeout
        done = run_binary(self.inv.binaries[cfg.system], args, limit)
        outcomes = classify_reps(done, limit, reps)
        command = shlex.join([str(self.inv.binaries[cfg.system])] + args)
        recs = []
        for i, (status, j, reason) in enumerate(outcomes):
            if status == R.MISSING and self.must_run(cfg, g):
                status = R.FAILED
                reason = (f"exit 2 (refused its arguments or environment) although `--kernel "
                          f"list` names {g.kernel}: {reason}")
            if status == R.TIMEOUT and cap is not None:
                status, reason = R.OVER_CAP, self.opts.cap.reason(cap, basis, reps)
            self.seq += 1
            rec = R.RunRecord(
                seq=self.seq, kernel=g.kernel, variant=g.variant, workers=g.workers,
                system=cfg.system, policy=cfg.weft_policy, label=cfg.label, run=first + i,
                status=status, rc=done.rc, wall_s=round(done.wall_s / len(outcomes), 6),
                reason=reason, command=command, cap_s=cap, process_wall_s=round(done.wall_s, 6),
                rep=i, runs_covered=reps if len(outcomes) == 1 else 1)
            if j:
                rec.take_json(j)
            if status != R.OK and done.stderr:
                rec.stderr = tail(done.stderr, 1000)
            recs.append(rec)
        self.runs += recs
        if cfg.system == "serial" and all(r.status == R.OK for r in recs) and not g.variant:
            self.serial_walls.setdefault(g.kernel, []).append(done.wall_s / reps)
        return recs

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
