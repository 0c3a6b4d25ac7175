"""The progress line on stderr: runs done/total, elapsed, estimated time left."""
import statistics
import sys
import time

from .fmt import fmt_dur


class Progress:
    def __init__(self, total, estimator):
        self.total = total
        self.done = 0
        self.t0 = time.monotonic()
        self.estimator = estimator
        self.obs = {}          # (kernel, variant, label) -> [wall]
        self.guess_done = 0.0
        self.wall_done = 0.0
        self.tty = sys.stderr.isatty()
        self.last_print = 0.0
        self.last_len = 0

    def record(self, rec):
        self.done += 1
        self.obs.setdefault((rec.kernel, rec.variant, rec.label), []).append(rec.wall_s)
        self.guess_done += self.estimator.per_run(rec.kernel, rec.variant, rec.label,
                                                  rec.workers)
        self.wall_done += rec.wall_s

    def estimate_left(self, remaining):
        """remaining: (group, config) of every run not yet done."""
        corr = 1.0
        if self.guess_done > 0:
            corr = min(5.0, max(0.2, self.wall_done / self.guess_done))
        left = 0.0
        for g, c in remaining:
            o = self.obs.get((g.kernel, g.variant, c.label))
            left += statistics.fmean(o) if o else \
                corr * self.estimator.per_run(g.kernel, g.variant, c.label, g.workers)
        return left

    def show(self, what, pending, force=False):
        """pending() -> (group, config) of every run not yet done (asked only to print)."""
        now = time.monotonic()
        if not force and now - self.last_print < (0.2 if self.tty else 10):
            return
        self.last_print = now
        remaining = list(pending())
        self.total = self.done + len(remaining)
        pct = 100.0 * self.done / self.total if self.total else 100.0
        line = (f"[{self.done}/{self.total} {pct:4.1f}%] {what}  elapsed "
                f"{fmt_dur(now - self.t0)}  left ~{fmt_dur(self.estimate_left(remaining))}")
        if self.tty:
            sys.stderr.write("\r" + line + " " * max(0, self.last_len - len(line)))
            self.last_len = len(line)
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def finish(self):
        if self.tty and self.last_len:
            sys.stderr.write("\n")
            sys.stderr.flush()

    def say(self, msg):
        """A message that must not be overwritten by the progress line."""
        if self.tty and self.last_len:
            sys.stderr.write("\n")
            self.last_len = 0
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()
