"""docs/results/space.md from the measurements of space_measure.py (kept in space.json)."""
from __future__ import annotations

import statistics

from .fmt import fmt_time, md_table
from .space_measure import SERIAL_POLICY

# Published for comparison: libfork's bench/basic/memory.T3L.csv (commit 6ea43e25, UTS T3L),
# peak RSS in KiB per thread count; its serial program: 13088 KiB.  Ratios are computed here.
PUBLISHED_SERIAL_KIB = 13088
PUBLISHED_RSS_KIB = {
    "libfork": {1: 13764, 2: 18180, 8: 27808, 32: 41480},
    "oneTBB": {1: 42932, 2: 46904, 8: 85804, 32: 258180},
    "libomp (OpenMP tasks)": {1: 34196, 2: 39032, 8: 90964, 32: 304916},
}


def published_table():
    threads = [1, 2, 8, 32]
    rows = [[name] + [f"{kib[t] / PUBLISHED_SERIAL_KIB:.2f}×" for t in threads]
            for name, kib in PUBLISHED_RSS_KIB.items()]
    head = ["published (libfork, T3L)"] + [f"{t} thread{'s' if t > 1 else ''}" for t in threads]
    return md_table(head, rows)


def median_of(cell, key):
    xs = [s[key] for s in (cell or {}).get("samples", []) if s.get(key) is not None]
    return statistics.median(xs) if xs else None


def over(p, meta):
    """A worker count above the machine's cores is marked as oversubscribed."""
    return f"{p}†" if p > meta["machine"]["nproc"] else str(p)


def size(b):
    """Bytes as B below 10 KiB, KiB below 10 MiB, else MiB."""
    if b is None:
        return "—"
    if b < 10 * 1024:
        return f"{b:,.0f} B"
    if b < 10 * 1024 * 1024:
        return f"{b / 1024:,.0f} KiB"
    return f"{b / (1024 * 1024):,.1f} MiB"


def missing(cell):
    if cell is None:
        return "—"
    return {"missing": "n/i", "timeout": "timeout", "wrong": "WRONG", "failed": "FAILED"}.get(
        cell["status"], "—")


def header(part_meta, what):
    m = part_meta["machine"]
    return [f"Measured {part_meta['date']} on {m['cpu_model']} ({m['nproc']} cores"
            f"{', git ' + m['git'] if m.get('git') else ''}), size `{part_meta['size']}`, "
            f"{part_meta['runs']} runs {what}; † = more workers than cores (oversubscribed).", ""]


def weft_index(cells):
    return {(c["kernel"], c["policy"], c["workers"]): c for c in cells}


def per_worker_tables(part, intro, field, lead_header, lead, render):
    """One table per worker count: a row per kernel (its leading cells `lead(kernel)`), a column
    per policy with `render(value, kernel)` of the median of `field`."""
    meta, idx = part["meta"], weft_index(part["cells"])
    pols = [p for p in meta["policies"] if p != SERIAL_POLICY]
    out = list(intro)
    for p in meta["workers"]:
        rows = []
        for k in meta["kernels"]:
            row = lead(k)
            for pol in pols:
                c = idx.get((k, pol, p))
                v = median_of(c, field) if c and c["status"] == "ok" else None
                row.append(render(v, k) if v is not None else missing(c))
            rows.append(row)
        out += [f"p = {over(p, meta)}", "", md_table(lead_header + pols, rows), ""]
    return out


def thread_tables(part):
    intro = ["### Maximum simultaneously live threads (NAR Fig 7.1 style)", "",
             "`live_threads_peak` of the weft stats (median over the runs; how the pool totals "
             "it over its workers: `pool::stats` in include/weft/pool.hpp); n/i = the policy "
             "answers \"not implemented\".", ""]
    return per_worker_tables(part, intro, "live_threads_peak", ["kernel"], lambda k: [k],
                             lambda v, k: f"{v:g}")


def heap_tables(part):
    intro = ["### Heap high-water mark (NAR Fig 7.4 style)", "",
             "`heap_peak_bytes` (weft::malloc), median over the runs, and its ratio to S1 "
             "= the same kernel under `--policy serial` (the serial elision through the same "
             "allocator).", ""]
    idx = weft_index(part["cells"])
    s1 = {k: median_of(idx.get((k, SERIAL_POLICY, 1)), "heap_peak_bytes") for k in part["meta"]["kernels"]}
    return per_worker_tables(part, intro, "heap_peak_bytes", ["kernel", "S1"],
                             lambda k: [k, size(s1[k])],
                             lambda v, k: size(v) + (f" ({v / s1[k]:.2g}×)" if s1[k] else ""))


def time_table(part):
    meta, idx = part["meta"], weft_index(part["cells"])
    pols = meta["policies"]
    head = ["kernel", "p"] + pols
    rows = []
    for k in meta["kernels"]:
        for p in meta["workers"]:
            row = [k, over(p, meta)]
            for pol in pols:
                c = idx.get((k, pol, p))
                v = median_of(c, "time_s") if c and c["status"] == "ok" else None
                row.append(fmt_time(v) if v is not None else
                           ("" if pol == SERIAL_POLICY and p != 1 else missing(c)))
            rows.append(row)
    return ["### Time", "", "Median `time_s` of the same runs (the machine is shared: a rough "
            "guide, not a benchmark).", "", md_table(head, rows), ""]


def rss_table(part):
    meta = part["meta"]
    idx = {(c["label"], c["workers"]): c for c in part["cells"]}
    serial = median_of(idx.get(("serial", 1)), "maxrss_kib")
    labels = list(dict.fromkeys(c["label"] for c in part["cells"]))
    rows = []
    for lab in labels:
        row = [lab]
        for p in meta["workers"]:
            c = idx.get((lab, p))
            v = median_of(c, "maxrss_kib") if c and c["status"] == "ok" else None
            if v is None:
                row.append("" if c is None else missing(c))
            else:
                row.append(f"{v / serial:.2f}× ({v / 1024:.1f} MiB)" if serial else
                           f"{v / 1024:.1f} MiB")
        rows.append(row)
    head = ["system"] + [f"p = {over(p, meta)}" for p in meta["workers"]]
    return ["Peak resident set (GNU time's %M, the kernel's ru_maxrss of each process, median "
            "over the runs) "
            f"of `{meta['kernel']}` as a multiple of the serial binary's "
            f"({serial / 1024:.1f} MiB)." if serial else "No serial baseline was measured.", "",
            md_table(head, rows), "",
            "Published for comparison, libfork's bench/basic/memory.T3L.csv (UTS T3L, a larger "
            "binomial tree, on a many-core machine; peak RSS over its serial program's): at 32 "
            "threads libfork 3.2×, oneTBB 19.7×, libomp 23×.  The same file at the thread counts "
            "used here:", "", published_table(), "",
            "Only the shape compares: the rayon and chili peers are Rust programs measured "
            "against the C++ serial binary, and p = 8 here shares 2 cores.", ""]


def render(data):
    out = ["# Space: NAR kernels and the UTS binomial tree", "",
           "Generated by `bench/tools/nar_memory.py` (issue 11, \"What it must show\"). "
           "Regenerate both parts, after rebuilding the binaries (scripts/build-bench.sh):", "",
           f"    {data.get('command', 'python3 bench/tools/nar_memory.py')}", ""]
    ws = data.get("weft_space")
    if ws:
        out += ["## NAR kernels under every weft policy", ""] + \
            header(ws["meta"], "per configuration, one process each") + \
            [f"Policies: those `weft-bench-weft --policy list` named "
             f"({', '.join(ws['meta']['policies'])}); default policy: "
             f"{ws['meta'].get('default_policy') or '?'}.", ""] + \
            thread_tables(ws) + heap_tables(ws) + time_table(ws)
    rs = data.get("rss")
    if rs:
        out += ["## Peak resident memory of the UTS binomial tree", ""] + \
            header(rs["meta"], "per configuration, one process per run") + rss_table(rs)
    return "\n".join(out) + "\n"
