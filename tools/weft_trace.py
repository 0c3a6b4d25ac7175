#!/usr/bin/env python3
"""Reads weft's timeline traces (WEFT_TRACE=file.json; Chrome/Perfetto trace-event JSON).

  tools/weft_trace.py breakdown TRACE.json [TRACE.json ...] [--plot out.png] [--per-worker]
      Time per activity in WOOL §IV.D Fig. 6's categories (startup/shutdown TR, application work NA,
      work acquired by leapfrogging LA, stealing ST, leapfrogging LF, plus idle = asleep), per worker
      and per trace, in ms and as a share of the lanes' total.  A lane's time is its thread's wall
      time, descheduled time included: WOOL's Fig. 6 shows CPU time on a dedicated machine, where the
      two agree.  --plot draws it as stacked bars, one bar per trace (or per worker with --per-worker,
      which is refused without --plot).
  tools/weft_trace.py timeline TRACE.json [TRACE.json ...] --out out.png [--from MS] [--to MS]
      One lane per worker coloured by activity, steals marked; several traces are drawn one above
      the other on the same time scale (e.g. one kernel under two policies).
  tools/weft_trace.py summary TRACE.json
      Counts of the instants per worker (promotions, steals, heartbeats), dropped events, and the
      achieved heartbeat rate (beats delivered / beats requested).

The same files open in https://ui.perfetto.dev and chrome://tracing.  The pictures (--plot,
timeline) need matplotlib: the project's venv has it (.venv/bin/python tools/weft_trace.py ...).
A file that is missing, not JSON or not a trace is a one-line error, exit 2.
"""
import argparse
import collections
import json
import math
import os
import sys

# WOOL Fig. 6's categories (its abbreviations), in stacking order, and idle.
ACTIVITIES = [
    ("work", "NA", "#4c72b0"),
    ("leapfrog-work", "LA", "#64b5cd"),
    ("stealing", "ST", "#dd8452"),
    ("leapfrogging", "LF", "#c44e52"),
    ("startup", "TR", "#8c8c8c"),
    ("shutdown", "TR", "#595959"),
    ("idle", "idle", "#e5e5e5"),
]
COLOR = {name: color for name, _, color in ACTIVITIES}


class TraceError(Exception):
    """A file that cannot be read as a weft trace, or a picture without matplotlib: main's one-line error."""


# The fields each kind of event must have, as this script reads them.
NEEDS = {"X": ("name", "tid", "ts", "dur"), "i": ("name", "tid", "ts")}


def load(path):
    try:
        with open(path) as f:
            trace = json.load(f)
    except OSError as e:
        raise TraceError(f"{path}: cannot read it: {e.strerror or e}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise TraceError(f"{path}: not JSON ({e})") from None
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list):
        raise TraceError(f"{path}: not a trace: no \"traceEvents\" list (WEFT_TRACE=file.json writes one)")
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            raise TraceError(f"{path}: not a trace: traceEvents[{i}] is not an object")
        missing = [k for k in NEEDS.get(e.get("ph"), ()) if k not in e]
        if e.get("ph") == "M" and e.get("name") == "thread_name" and (
                "tid" not in e or not isinstance(e.get("args"), dict) or not isinstance(e["args"].get("name"), str)):
            missing = ["tid and args.name"]
        if missing:
            raise TraceError(f"{path}: not a trace: traceEvents[{i}] (ph {e.get('ph')!r}) has no {', '.join(missing)}")
    if not isinstance(trace.get("otherData", {}), dict):
        raise TraceError(f"{path}: not a trace: \"otherData\" is not an object")
    return trace


def need_matplotlib():
    """The pictures' matplotlib, checked before any output: the system python3 of the shebang often lacks it."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise TraceError(f"the pictures need matplotlib, which {sys.executable} does not have: run "
                         f"`.venv/bin/python tools/weft_trace.py ...` (the project's venv), or install it "
                         f"(python3 -m pip install --user -r bench/requirements.txt)") from None


def check_picture(flag, path):
    """The picture's path, checked before any output: savefig into a folder that does not exist, or
    to an extension that is no picture format, ended in a traceback after the breakdown's table."""
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise TraceError(f"{flag} {path}: the folder {folder} does not exist")
    import matplotlib.figure
    formats = matplotlib.figure.Figure().canvas.get_supported_filetypes()
    ext = os.path.splitext(path)[1][1:].lower()
    if ext not in formats:
        raise TraceError(f"{flag} {path}: no picture format {ext!r} (accepted: {', '.join(sorted(formats))})")


def lane_names(trace):
    names = {}
    for e in trace["traceEvents"]:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[e["tid"]] = e["args"]["name"]
    return names


def worker_lanes(trace):
    """tid -> name of the lanes that are workers (the heartbeat timer has no activities)."""
    return {tid: n for tid, n in lane_names(trace).items() if n.startswith("worker")}


def breakdown(trace):
    """{tid: {activity: microseconds}} over the worker lanes."""
    out = {tid: collections.Counter() for tid in worker_lanes(trace)}
    for e in trace["traceEvents"]:
        if e.get("ph") == "X" and e["tid"] in out:
            out[e["tid"]][e["name"]] += e["dur"]
    return out


def label(path, trace):
    other = trace.get("otherData", {})
    base = os.path.splitext(os.path.basename(path))[0]
    return f"{base} ({other.get('policy', '?')}, {other.get('workers', '?')}w)"


def print_breakdown(path, trace, out=sys.stdout):
    per = breakdown(trace)
    names = [a for a, _, _ in ACTIVITIES]
    print(f"# {label(path, trace)}: time per activity (wall time of each lane), ms (share of the lane)", file=out)
    print(f"{'lane':<10}" + "".join(f"{n:>16}" for n in names) + f"{'total':>10}", file=out)
    total = collections.Counter()
    for tid in sorted(per):
        c = per[tid]
        total.update(c)
        lane_total = sum(c.values()) or 1.0
        cells = "".join(f"{c[n] / 1000:>9.2f} ({100 * c[n] / lane_total:>3.0f}%)" for n in names)
        print(f"worker {tid:<3}" + cells + f"{lane_total / 1000:>10.2f}", file=out)
    all_total = sum(total.values()) or 1.0
    cells = "".join(f"{total[n] / 1000:>9.2f} ({100 * total[n] / all_total:>3.0f}%)" for n in names)
    print(f"{'all':<10}" + cells + f"{all_total / 1000:>10.2f}", file=out)
    note = dropped_note(trace)
    if note:
        print(f"# {note}", file=out)


def dropped_note(trace):
    """What the dropped events mean for the file, and the setting that records them ("" when none).

    A buffer past 7/8 of its capacity drops instants only: the activities (this breakdown) are
    complete; a full one ends its lane with a trace-full instant, and the breakdown stops there."""
    other = trace.get("otherData", {})
    dropped = other.get("dropped_events", 0)
    if not dropped:
        return ""
    full = sorted({e.get("tid") for e in trace["traceEvents"] if e.get("ph") == "i" and e.get("name") == "trace-full"},
                  key=str)
    if full:
        what = (f"the buffer of lane(s) {', '.join(map(str, full))} filled up: their activities stop at its "
                f"trace-full instant, the breakdown covers what was recorded")
    else:
        what = "instants only: the activities, and so the breakdown, are complete"
    cap = other.get("events_per_lane_capacity", "?")
    return (f"{dropped} events were dropped ({what}); to record them, raise WEFT_TRACE_EVENTS / "
            f"config.trace_events (this file: {cap} per lane)")


def plot_breakdown(items, out_png, per_worker):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bars = []  # (label, Counter in ms)
    for path, trace in items:
        per = breakdown(trace)
        if per_worker:
            for tid in sorted(per):
                bars.append((f"{label(path, trace)}\nworker {tid}", per[tid]))
        else:
            total = collections.Counter()
            for c in per.values():
                total.update(c)
            bars.append((label(path, trace).replace(" (", "\n("), total))
    fig, ax = plt.subplots(figsize=(max(4, 2.2 * len(bars) + 2.5), 4.5))
    bottoms = [0.0] * len(bars)
    for name, abbrev, color in ACTIVITIES:
        heights = [c[name] / 1000 for _, c in bars]
        ax.bar(range(len(bars)), heights, bottom=bottoms, color=color, label=f"{name} ({abbrev})")
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels([b for b, _ in bars], fontsize=8)
    # A lane's time is the thread's wall time (descheduled time included), as WOOL's CPU time is on
    # a dedicated machine.
    ax.set_ylabel("time, ms (summed over worker lanes)")
    ax.set_title("weft: time per activity, lanes' wall time (WOOL Fig. 6 categories)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(out_png, dpi=120)
    print(f"wrote {out_png}")


def plot_timeline(items, out_png, t_from, t_to):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.patches as mpatches
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(items), 1, figsize=(11, 1.2 + 0.7 * sum(len(worker_lanes(t)) for _, t in items)),
                             sharex=True, squeeze=False)
    for ax, (path, trace) in zip(axes[:, 0], items):
        lanes = worker_lanes(trace)
        spans = collections.defaultdict(list)
        steals = collections.defaultdict(list)
        for e in trace["traceEvents"]:
            tid = e.get("tid")
            if tid not in lanes:
                continue
            if e.get("ph") == "X":
                a, b = e["ts"] / 1000, (e["ts"] + e["dur"]) / 1000
                if t_to is not None and a > t_to or t_from is not None and b < t_from:
                    continue
                spans[(tid, e["name"])].append((a, b - a))
            elif e.get("ph") == "i" and e["name"] == "steal":
                steals[tid].append(e["ts"] / 1000)
        for (tid, name), xs in spans.items():
            ax.broken_barh(xs, (tid - 0.4, 0.8), facecolors=COLOR.get(name, "black"), linewidth=0)
        for tid, ts in steals.items():
            ax.plot(ts, [tid + 0.45] * len(ts), "v", color="black", markersize=3)
        ax.set_yticks(sorted(lanes))
        ax.set_yticklabels([lanes[t] for t in sorted(lanes)], fontsize=8)
        ax.invert_yaxis()
        ax.set_title(label(path, trace), fontsize=9, loc="left")
        if t_from is not None or t_to is not None:
            ax.set_xlim(t_from, t_to)
    axes[-1, 0].set_xlabel("time since the pool started, ms (triangles: steals)")
    handles = [mpatches.Patch(color=c, label=f"{n} ({a})") for n, a, c in ACTIVITIES]
    fig.legend(handles=handles, loc="upper right", fontsize=7, ncol=len(handles))
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(out_png, dpi=120)
    print(f"wrote {out_png}")


def print_summary(path, trace, out=sys.stdout):
    lanes = lane_names(trace)
    counts = collections.defaultdict(collections.Counter)
    for e in trace["traceEvents"]:
        if e.get("ph") == "i":
            counts[e["tid"]][e["name"]] += 1
    other = trace.get("otherData", {})
    print(f"# {label(path, trace)}; dropped events: {other.get('dropped_events', 0)}", file=out)
    note = dropped_note(trace)
    if note:
        print(f"# {note}", file=out)
    kinds = ["promotion", "steal", "stolen-from", "heartbeat", "beat-sent"]
    print(f"{'lane':<18}" + "".join(f"{k:>12}" for k in kinds), file=out)
    for tid in sorted(lanes):
        print(f"{lanes[tid]:<18}" + "".join(f"{counts[tid][k]:>12}" for k in kinds), file=out)
    requested = other.get("heartbeats_requested", [])
    for tid, req in enumerate(requested):
        got = counts[tid]["heartbeat"]
        if req:
            print(f"worker {tid}: heartbeats delivered {got} / requested {req} = {100 * got / req:.1f}%", file=out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("breakdown")
    b.add_argument("traces", nargs="+")
    b.add_argument("--plot")
    b.add_argument("--per-worker", action="store_true")
    t = sub.add_parser("timeline")
    t.add_argument("traces", nargs="+")
    t.add_argument("--out", required=True)
    t.add_argument("--from", dest="t_from", type=float)
    t.add_argument("--to", dest="t_to", type=float)
    s = sub.add_parser("summary")
    s.add_argument("traces", nargs="+")
    a = p.parse_args(argv)
    try:
        # Checked before matplotlib is looked for: neither needs it.  --per-worker shapes the picture
        # alone (the printed breakdown is per worker anyway): without --plot it was silently nothing;
        # a --from/--to of nan passed the order check below and failed in set_xlim (stop 51's config hunt).
        if a.cmd == "breakdown" and a.per_worker and not a.plot:
            raise TraceError("--per-worker draws the --plot picture one bar per worker: give --plot too "
                             "(the printed breakdown is per worker already)")
        for name, v in (("--from", getattr(a, "t_from", None)), ("--to", getattr(a, "t_to", None))):
            if v is not None and not math.isfinite(v):
                raise TraceError(f"{name} {v:g} is not a time: give milliseconds from the trace's start")
        if a.cmd == "timeline" or getattr(a, "plot", None):
            need_matplotlib()
            check_picture("--out" if a.cmd == "timeline" else "--plot", a.out if a.cmd == "timeline" else a.plot)
        if a.cmd == "timeline" and a.t_from is not None and a.t_to is not None and a.t_from >= a.t_to:
            raise TraceError(f"--from {a.t_from:g} is past --to {a.t_to:g}: no time to draw")
        items = [(path, load(path)) for path in a.traces]
    except TraceError as e:
        print(f"weft_trace.py: {e}", file=sys.stderr)
        return 2
    if a.cmd == "breakdown":
        for path, trace in items:
            print_breakdown(path, trace)
        if a.plot:
            plot_breakdown(items, a.plot, a.per_worker)
    elif a.cmd == "timeline":
        plot_timeline(items, a.out, a.t_from, a.t_to)
    else:
        for path, trace in items:
            print_summary(path, trace)
    return 0


if __name__ == "__main__":
    sys.exit(main())
