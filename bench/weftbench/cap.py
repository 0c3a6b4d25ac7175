"""The time cap of a run: a peer configuration that is hopeless at a size (tens of times
slower than the serial elision) is stopped and reported "over cap" instead of holding the
whole run up, so the inputs can stay large enough for everyone else.

The cap of a non-serial run is min(cap_seconds, max(floor, factor x serial wall)), where
serial wall is the median wall time of the serial binary's runs of the same kernel so far
(it runs first in every round, so the basis is known before any peer starts). Both are per
timed run: a process that times R runs (`BIN --reps R`) gets R times the cap, the serial
wall being its processes' wall time over the runs they timed; the floor is per process (it
covers the process start, input generation and warm-up, which a process pays once). Wall time,
not the timed region, because wall time is what a kill can bound; both include the same
input generation, warm-up and check, so a configuration over factor x the serial wall is
well over factor x Ts. The serial binary itself is never capped (only --timeout applies).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .fmt import fmt_time


@dataclass(frozen=True)
class CapRule:
    factor: float = 0.0              # 0: no relative cap
    seconds: Optional[float] = None  # None: no absolute cap
    floor_s: float = 1.0             # a relative cap is never below this

    @property
    def enabled(self) -> bool:
        return bool(self.factor) or self.seconds is not None

    def limit(self, serial_wall_s: Optional[float], runs: int = 1) -> Optional[float]:
        """Seconds a non-serial process timing `runs` runs may take (serial_wall_s: the
        serial binary's wall time per timed run), or None when it is not capped."""
        parts = []
        if self.factor and serial_wall_s:
            parts.append(max(self.floor_s, self.factor * serial_wall_s * runs))
        if self.seconds is not None:
            parts.append(self.seconds * runs)
        return min(parts) if parts else None

    def describe(self) -> str:
        if not self.enabled:
            return "no time cap"
        parts = []
        if self.factor:
            parts.append(f"{self.factor:g} × the serial binary's median wall time of the "
                         f"same kernel (at least {fmt_time(self.floor_s)} a process)")
        if self.seconds is not None:
            parts.append(f"at most {fmt_time(self.seconds)}")
        return ", ".join(parts)

    def reason(self, limit_s: float, serial_wall_s: Optional[float], runs: int = 1) -> str:
        """Why a process of `runs` timed runs was stopped (serial_wall_s: per timed run)."""
        # limit_s is the whole process's cap: say so when it timed several runs
        whose = f" of this process of {runs} timed runs" if runs > 1 else ""
        per = ", per timed run" if runs > 1 else ""
        basis = f"; serial wall {fmt_time(serial_wall_s)}" + (" a run" if runs > 1 else "") \
            if serial_wall_s else ""
        return (f"over the time cap{whose}, {fmt_time(limit_s)} ({self.describe()}{per}"
                f"{basis})") if runs > 1 else \
            f"over the time cap of {fmt_time(limit_s)} ({self.describe()}{basis})"
