"""Space measurements of the NAR kernels and of the UTS binomial tree (bench/tools/nar_memory.py).

Two collections, each a list of plain dicts (JSON-ready):

* weft_space: every NAR kernel (NAR §4 / §5.4: mmtemp, strassen, dtree, fft, meshspmv) under
  every policy `weft-bench-weft --policy list` names, at each worker count, one process of
  `--reps runs` timed runs; per run the weft stats' `live_threads_peak` (NAR Fig 7.1's "maximum
  number of simultaneously active threads") and `heap_peak_bytes` (Fig 7.4's high-water mark of
  weft::malloc) and `time_s`.  The policy `serial` runs at one worker only: its heap_peak_bytes
  is S1, the serial program's space through the same allocator.
* rss: the UTS binomial tree (uts-bin) in every system binary (each weft policy, the peers), one
  process per run, its peak resident set from the kernel (GNU time's %M, the ru_maxrss of
  wait4, KiB), beside the serial binary's.
"""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Optional

from .binaries import child_env, json_lines, tail

NAR_KERNELS = ["mmtemp", "strassen", "dtree", "fft", "meshspmv"]
UTS_KERNEL = "uts-bin"
SERIAL_POLICY = "serial"  # weft's serial elision: runs on the caller alone (--workers 1)


@dataclass
class Process:
    """One finished (or killed) process: rc None when it ran past its time limit."""
    rc: Optional[int]
    stdout: str
    stderr: str
    maxrss_kib: Optional[int]
    wall_s: float


GNU_TIME = "/usr/bin/time"  # Debian package "time" (scripts/install-deps.sh)


def run_measured(path, args, limit_s) -> Process:
    """Runs path with args under GNU time and returns its output and its own peak RSS (%M,
    KiB).  Not wait4 from here: Linux keeps a process's RSS high-water mark across fork and
    exec, so a child of this Python process would report at least Python's own RSS (about
    17 MiB); GNU time is a small process, and its child starts from its few MiB."""
    with tempfile.NamedTemporaryFile(prefix="rss") as rss_file, \
            tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        cmd = [GNU_TIME, "-f", "%M", "-o", rss_file.name, str(path)] + [str(a) for a in args]
        p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                             env=child_env(), start_new_session=True)
        try:
            rc = p.wait(timeout=limit_s)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # time and the binary: its own session
            p.wait()
            rc = None
        wall = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        rss = None
        if rc is not None:
            lines = [x for x in rss_file.read().decode(errors="replace").split() if x.isdigit()]
            rss = int(lines[-1]) if lines else None
        return Process(rc, out.read().decode(errors="replace"),
                       err.read().decode(errors="replace"), rss, wall)


def outcome(proc: Process, limit_s):
    """(status, reason): ok, missing (exit 2: the binary does not know it), wrong (exit 3),
    timeout, failed."""
    if proc.rc is None:
        return "timeout", f"killed after {limit_s:g} s"
    if proc.rc == 0:
        return "ok", ""
    first = proc.stderr.strip().splitlines()[0] if proc.stderr.strip() else ""
    if proc.rc == 2:
        return "missing", tail(first, 300)
    if proc.rc == 3:
        return "wrong", "wrong checksum: " + tail(proc.stderr, 300)
    return "failed", f"exit {proc.rc}: " + tail(proc.stderr, 300)


def weft_cell(weft, kernel, policy, workers, size, runs, limit_s):
    """One (kernel, policy, workers) of weft_space: one process of `runs` timed runs."""
    args = ["--kernel", kernel, "--size", size, "--workers", workers, "--policy", policy]
    if runs > 1:
        args += ["--reps", runs]
    proc = run_measured(weft, args, limit_s)
    status, reason = outcome(proc, limit_s)
    samples = []
    for j in json_lines(proc.stdout):
        st = j.get("stats") or {}
        samples.append({"time_s": j.get("time_s"), "heap_peak_bytes": st.get("heap_peak_bytes"),
                        "live_threads_peak": st.get("live_threads_peak")})
    if status == "ok" and len(samples) != runs:
        status, reason = "failed", f"printed {len(samples)} JSON lines for {runs} runs"
    return {"kernel": kernel, "policy": policy, "workers": workers, "status": status,
            "reason": reason, "samples": samples}


def weft_space(weft, policies, kernels, workers, size, runs, limit_s, say):
    """Every (kernel, policy, worker count); the serial policy at one worker only."""
    cells = []
    for kernel in kernels:
        for policy in policies:
            for p in workers:
                if policy == SERIAL_POLICY and p != 1:
                    continue
                c = weft_cell(weft, kernel, policy, p, size, runs, limit_s)
                say(f"  {kernel} {policy} p={p}: {c['status']} {c['reason']}".rstrip())
                cells.append(c)
    return cells


def rss_configs(binaries, policies):
    """(label, path, extra args, serial-only) of every configuration of the RSS table."""
    out = []
    if "serial" in binaries:
        out.append(("serial", binaries["serial"], [], True))
    for pol in policies or []:
        if "weft" in binaries:
            out.append((f"weft:{pol}", binaries["weft"], ["--policy", pol],
                        pol == SERIAL_POLICY))
    for s, path in binaries.items():
        if s not in ("serial", "weft"):
            out.append((s, path, [], False))
    return out


def rss(binaries, policies, workers, size, runs, limit_s, say):
    """Peak RSS of uts-bin per configuration and worker count, `runs` processes each."""
    cells = []
    for label, path, extra, one_worker in rss_configs(binaries, policies):
        for p in workers:
            if one_worker and p != 1:
                continue
            args = ["--kernel", UTS_KERNEL, "--size", size, "--workers", p] + extra
            samples, status, reason = [], "ok", ""
            for _ in range(runs):
                proc = run_measured(path, args, limit_s)
                status, reason = outcome(proc, limit_s)
                if status != "ok":
                    break
                j = (json_lines(proc.stdout) or [{}])[-1]
                samples.append({"maxrss_kib": proc.maxrss_kib, "time_s": j.get("time_s")})
            say(f"  {UTS_KERNEL} {label} p={p}: {status} {reason}".rstrip())
            cells.append({"label": label, "workers": p, "status": status, "reason": reason,
                          "samples": samples})
    return cells
