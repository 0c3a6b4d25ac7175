#!/usr/bin/env bash
# Flat loops: weft's parallel_for (no grain) against OpenMP's omp for, side by side (issue 10).
# Runs the systems process by process in alternation (serial, weft, omp-static, omp-dynamic,
# omp-dynamic64; ROUNDS rounds), each process timing REPS sweeps after a warm-up and printing their
# median; prints per kernel and worker count the median time of each system and the median over
# rounds of weft's time divided by each OpenMP schedule's time in the same round.
# usage: tools/flat_loops.sh BUILD_DIR [ROUNDS=5] [REPS=9] [KERNELS="stream poly stencil spmv"] [WORKERS="1 2"]
# (also stream-cache: the stream loop on data in cache, ~7 us a sweep; give it REPS ~ 2001)
set -euo pipefail
build=${1:?build dir}
rounds=${2:-5}
reps=${3:-9}
kernels=${4:-stream poly stencil spmv}
workers=${5:-1 2}
bin=$build/tools/weft-flat-loops
systems=(serial weft omp-static omp-dynamic omp-dynamic64)
# The arguments are checked before the first run: a bad kernel is an error naming it, not a
# traceback from the table's parser after minutes of the good kernels' runs.
fail() { echo "flat_loops.sh: $*" >&2; echo "usage: tools/flat_loops.sh BUILD_DIR [ROUNDS=5] [REPS=9] [KERNELS=\"stream poly stencil spmv\"] [WORKERS=\"1 2\"]" >&2; exit 2; }
[ -x "$bin" ] || fail "no $bin (built when the compiler has OpenMP: ninja -C $build weft-flat-loops)"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || fail "ROUNDS must be a positive integer, got '$rounds'"
for k in $kernels; do
  case $k in
    stream | stream-cache | poly | stencil | spmv) ;;
    *) fail "unknown kernel '$k' (accepted: stream stream-cache poly stencil spmv)" ;;
  esac
done
[ -n "${kernels// /}" ] || fail "KERNELS is empty"
[ -n "${workers// /}" ] || fail "WORKERS is empty"
# REPS and WORKERS too: a bad one stopped the script only at its first run, after every run of the
# values before it, with no table.  A value given twice ran twice and the table kept one run of
# each pair (its rows are keyed by kernel, workers, system and round).
[[ $reps =~ ^[1-9][0-9]*$ ]] || fail "REPS must be a positive integer, got '$reps'"
seen=" "
for w in $workers; do
  [[ $w =~ ^[1-9][0-9]*$ ]] || fail "WORKERS: '$w' is not a positive integer"
  [[ $seen != *" $w "* ]] || fail "WORKERS: $w is given twice"
  seen+="$w "
done
seen=" "
for k in $kernels; do
  [[ $seen != *" $k "* ]] || fail "KERNELS: $k is given twice"
  seen+="$k "
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for k in $kernels; do
  for w in $workers; do
    for ((r = 0; r < rounds; r++)); do
      for s in "${systems[@]}"; do
        # A failing run (a bad WORKERS or REPS: the program names it) stops the script with its status.
        line=$("$bin" "$k" "$s" "$w" "$reps") || { rc=$?; echo "flat_loops.sh: '$bin $k $s $w $reps' exited $rc" >&2; exit "$rc"; }
        echo "$r $line" >>"$out"
      done
    done
  done
done
python3 - "$out" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
# round kernel system workers seconds checksum
t = {}
sums = {}
for r, k, s, w, sec, chk in rows:
    t[(k, w, s, r)] = float(sec)
    sums.setdefault(k, set()).add(chk)
bad = [k for k, c in sums.items() if len(c) != 1]
if bad:
    sys.exit(f"checksums differ between systems: {bad}")
systems = ["serial", "weft", "omp-static", "omp-dynamic", "omp-dynamic64"]
keys = sorted({(row[1], row[3]) for row in rows}, key=lambda x: (x[0], int(x[1])))
print("%-8s %2s  %s  %s" % ("kernel", "P", "  ".join("%13s" % s for s in systems),
                             "  ".join("%14s" % ("weft/" + s) for s in systems if s != "weft")))
for k, w in keys:
    rs = sorted({r for (kk, ww, _, r) in t if kk == k and ww == w})
    med = {s: statistics.median(t[(k, w, s, r)] for r in rs) for s in systems}
    ratio = {s: statistics.median(t[(k, w, "weft", r)] / t[(k, w, s, r)] for r in rs) for s in systems if s != "weft"}
    print("%-8s %2s  %s  %s" % (k, w, "  ".join("%11.1fus" % (med[s] * 1e6) for s in systems),
                                 "  ".join("%14.3f" % ratio[s] for s in systems if s != "weft")))
EOF
