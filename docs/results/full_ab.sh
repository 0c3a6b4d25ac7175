#!/usr/bin/env bash
set -u
# usage: docs/results/full_ab.sh   (run from the repository root; bfs, tsp, quickhull at full size)
A=build/bench; out=/tmp/full_ab.txt; : > $out
for r in 1 2 3 4 5; do
  for k in bfs tsp quickhull; do
    for cfg in "serial 1" "weft 1" "weft 2" "omp-gcc 1" "omp-gcc 2" "tbb 2"; do
      set -- $cfg
      t=$($A/weft-bench-$1 --kernel $k --size full --workers $2 --reps 3 | python3 -c "import sys,json,statistics; print(statistics.median(json.loads(l)['time_s'] for l in sys.stdin if l.startswith('{')))")
      echo "$k $1 $2 $t" >> $out
    done
  done
done
python3 - <<'PY'
import statistics, collections
d = collections.defaultdict(list)
for l in open('/tmp/full_ab.txt'):
    k, s, w, t = l.split(); d[(k, s, int(w))].append(float(t))
for k in ('bfs', 'tsp', 'quickhull'):
    ts = statistics.median(d[(k, 'serial', 1)])
    row = [f"{k:10} Ts {ts:.4f}"]
    for s, w in (('weft', 1), ('weft', 2), ('omp-gcc', 1), ('omp-gcc', 2), ('tbb', 2)):
        m = statistics.median(d[(k, s, w)]); row.append(f"{s}@{w} {m:.4f} ({ts / m:.2f}x serial)")
    print(' | '.join(row))
PY
