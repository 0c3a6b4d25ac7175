"""The measured runs of the tools' drivers (env_compare.py, trace_study.py, spawn_compare.py,
heartbeat_study.py): a binary that is not there, a run that fails or output that is not what the
driver reads stops the driver with the command, its exit status and its stderr — not a traceback.
Exit status 2 for a binary that cannot be started (a wrong path: bad input), 1 otherwise."""
from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys


# A float as printf %g or %f writes it: 1.5, .5, 1e-05, 2.5E+03 (the programs' "Time:" figure).
FLOAT = r"[0-9]+\.?[0-9]*(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?"
# A whole "Time: SECONDS" line of Lace's programs and their weft ports.
TIME_LINE = re.compile(rf"^Time:\s*({FLOAT})\s*$", re.M)


def given_twice(xs) -> list:
    """The items of a command-line list that occur more than once, sorted: a driver keys its results
    by them, and a repeated one merged two configurations' runs into one."""
    return sorted({x for x in xs if xs.count(x) > 1})


def stop(argv, why: str, stderr: str = "", status: int = 1):
    """Ends the driver: `PROG: COMMAND: WHY`, then the run's stderr (its last 40 lines)."""
    prog = sys.argv[0].rsplit("/", 1)[-1] or "tools"
    print(f"{prog}: {shlex.join(str(a) for a in argv)}: {why}", file=sys.stderr)
    tail = stderr.rstrip().splitlines()[-40:]
    if tail:
        print("\n".join("  " + line for line in tail), file=sys.stderr)
    raise SystemExit(status)


def checked(argv, env=None) -> str:
    """Runs argv (with env, if given) and returns its stdout; stops the driver if it cannot."""
    argv = [str(a) for a in argv]
    try:
        r = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    except OSError as e:  # FileNotFoundError, PermissionError, ...
        stop(argv, f"cannot run it: {e.strerror or e}", status=2)
    if r.returncode != 0:
        stop(argv, f"exit status {r.returncode}", r.stderr)
    return r.stdout


def count(text: str) -> int:
    """argparse type of a number of runs or rounds: an integer of at least 1 (0 ran nothing and
    ended in a traceback taking the median of no times, or in a wrong message)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer of at least 1, got '{text}'") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be an integer of at least 1, got '{text}'")
    return n


def counts(text: str) -> list:
    """argparse type of a comma list of worker counts or periods (--workers 1,2, --ns 3,10): integers
    of at least 1, none left empty ("1,,2").  int() of each part in the driver ended in a traceback
    on "1,x", in trace_study.py only after the first kernel's runs."""
    try:
        xs = [int(x) for x in text.split(",")]
    except ValueError:
        xs = []
    if not xs or min(xs) < 1:
        raise argparse.ArgumentTypeError(f"must be a comma list of integers of at least 1, got '{text}'")
    return xs


def field(argv, record, *path):
    """record[path[0]][path[1]]... of a run's JSON line; stops the driver naming the command and the
    field when the line has none (a binary other than weft-bench-weft: KERNELS.md gives "stats" to
    weft only; a KeyError's traceback before)."""
    x = record
    for i, key in enumerate(path):
        if not isinstance(x, dict) or key not in x:
            stop(argv, f"its JSON line has no {'.'.join(path[:i + 1])} (a weft-bench-weft binary's has; "
                       f"the line: {str(record)[:200]})")
        x = x[key]
    return x
