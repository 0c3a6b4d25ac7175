#!/usr/bin/env bash
# bfs before/after (the frontier appended in blocks), every C++ system and the Rust peers, quick size.
# Alternates processes round by round; each process: --reps 3 (median of its runs reported last).
set -u
# usage: BEFORE=<a build of the old kernel>/bench docs/results/bfs_ab.sh   (run from the repository root)
B=${BEFORE:?BEFORE=build dir/bench of the old kernel}; A=build/bench; R=bench/rust/target/release
ROUNDS=${ROUNDS:-5}; SIZE=${SIZE:-quick}
out=/tmp/bfs_ab.txt; : > $out
for r in $(seq $ROUNDS); do
  for w in 1 2; do
    for cfg in "serial:before:$B/weft-bench-serial" "serial:after:$A/weft-bench-serial" \
               "weft:before:$B/weft-bench-weft" "weft:after:$A/weft-bench-weft" \
               "omp:before:$B/weft-bench-omp-gcc" "omp:after:$A/weft-bench-omp-gcc" \
               "tbb:before:$B/weft-bench-tbb" "tbb:after:$A/weft-bench-tbb" \
               "rayon:after:$R/weft-bench-rayon" "chili:after:$R/weft-bench-chili"; do
      IFS=: read sys ver bin <<< "$cfg"
      [ "$sys" = serial ] && [ $w = 2 ] && continue
      t=$($bin --kernel bfs --size $SIZE --workers $w --reps 3 | python3 -c "import sys,json,statistics; print(statistics.median(json.loads(l)['time_s'] for l in sys.stdin if l.startswith('{')))")
      echo "$sys $ver $w $t" >> $out
    done
  done
done
python3 - <<'PY'
import statistics, collections
d = collections.defaultdict(list)
for l in open('/tmp/bfs_ab.txt'):
    s, v, w, t = l.split(); d[(s, v, int(w))].append(float(t))
ts = {v: statistics.median(d[('serial', v, 1)]) for v in ('before', 'after')}
print(f"{'system':8}{'build':8}{'P':>3}{'median_s':>10}{'T/Ts(same build)':>18}")
for k in sorted(d):
    m = statistics.median(d[k]); base = ts.get(k[1], ts['after'])
    print(f"{k[0]:8}{k[1]:8}{k[2]:>3}{m:>10.4f}{m / base:>18.2f}")
PY
