#!/usr/bin/env bash
# What this host gives 2 workers at most: the serial binary alone, then two copies of it at once
# (the slower one's time), beside weft's default policy at 2 workers, ROUNDS rounds in that order;
# prints per kernel the medians, the two copies' throughput against one (2 x alone / together: the
# most a 2-worker run could speed up if its work split evenly and its workers shared nothing) and
# weft's speedup against it.  On the 2-vCPU VMs two serial copies of a kernel do not always run at
# full speed side by side (docs/results/loops.md, "Item 3 against what two copies get").
# usage: tools/two_copies_ceiling.sh [BENCH_DIR=build/bench] [ROUNDS=5] [KERNELS="bfs tsp quickhull"] [SIZE=full]
set -euo pipefail
B=${1:-build/bench}; R=${2:-5}; K=${3:-"bfs tsp quickhull"}; S=${4:-full}
usage="usage: tools/two_copies_ceiling.sh [BENCH_DIR=build/bench] [ROUNDS=5] [KERNELS=\"bfs tsp quickhull\"] [SIZE=full]"
for bin in weft-bench-serial weft-bench-weft; do
  [ -x "$B/$bin" ] || { echo "two_copies_ceiling.sh: no $B/$bin (built with -DWEFT_BUILD_BENCH=ON)" >&2; echo "$usage" >&2; exit 2; }
done
[[ $R =~ ^[1-9][0-9]*$ ]] || { echo "two_copies_ceiling.sh: ROUNDS must be a positive integer, got '$R'" >&2; echo "$usage" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One process of 3 timed runs (the benchmark binary's JSON lines): their median time in seconds.
t() { "$@" | python3 -c "import sys,json,statistics as s; print(s.median(json.loads(l)['time_s'] for l in sys.stdin))"; }
for k in $K; do
  for _ in $(seq "$R"); do
    a=$(t "$B/weft-bench-serial" --kernel "$k" --size "$S" --workers 1 --reps 3)
    t "$B/weft-bench-serial" --kernel "$k" --size "$S" --workers 1 --reps 3 > "$tmp/one" &
    t "$B/weft-bench-serial" --kernel "$k" --size "$S" --workers 1 --reps 3 > "$tmp/two"
    wait $!
    p=$(sort -g "$tmp/one" "$tmp/two" | tail -1)
    w=$(t "$B/weft-bench-weft" --kernel "$k" --size "$S" --workers 2 --reps 3)
    echo "$k $a $p $w"
  done
done > "$tmp/rows"
python3 - "$tmp/rows" <<'PY'
import collections, statistics as s, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    k, a, p, w = line.split()
    d[k].append((float(a), float(p), float(w)))
for k, v in d.items():
    ceiling = s.median(2 * a / p for a, p, _ in v)
    speedup = s.median(a / w for a, _, w in v)
    print(f"{k}: serial alone {s.median(a for a, _, _ in v):.4f} s, two serial copies at once "
          f"{s.median(p for _, p, _ in v):.4f} s (throughput {ceiling:.2f}x one), weft 2 workers "
          f"{s.median(w for _, _, w in v):.4f} s: speedup {speedup:.2f}, {speedup / ceiling:.2f} of the two copies'")
PY
