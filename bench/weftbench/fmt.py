"""Number, time and table formatting shared by the report, the progress line and the CLI."""
import math


def fmt_time(s):
    """Seconds as a short human time (3 significant digits)."""
    if s is None:
        return "—"
    # the unit is chosen on the rounded value: 0.9996 s is "1 s", not "1e+03 ms"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        v = s / scale
        if float(f"{v:.3g}") >= 1 or unit == "µs":
            return f"{v:.0f} {unit}" if v >= 1000 else f"{v:.3g} {unit}"


def fmt_num(x, digits=3):
    if x is None:
        return "—"
    if x == 0:
        return "0"
    if abs(x) >= 10 ** digits:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def fmt_dur(s):
    """A duration as m:ss, or XhYYmZZs from an hour on."""
    if s is None or not math.isfinite(s):
        return "?"
    s = int(round(s))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m{s % 60:02d}s"
    return f"{s // 60}:{s % 60:02d}"


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def plural(n, word):
    return f"{n} {word}{'s' if n != 1 else ''}"
