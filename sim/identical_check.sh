#!/usr/bin/env bash
# Do two weft-sim binaries give the same results?  For an engine change that must not change what
# is simulated (a speed-up, a refactoring): every policy x a set of DAGs x P in {1, 2, 7, 64, 1000}
# x seeds 1 and 2, under the default costs and under the cost settings that switch the engine's
# other paths on (zero steal latency and parking, backoff and the lazy hold, heartbeat's spare
# delivery and per-thread credit, time slicing, no leapfrogging, detached loop pieces, chunked
# loops, quotas with dummy threads).  Each case's --json output must be byte-identical (the JSON
# holds no wall-clock time): any difference is a change in the simulation, e.g. RNG draws taken
# in another order.
#
#   sim/identical_check.sh REF_BIN NEW_BIN [WORKDIR]     (WORKDIR default /tmp/weft-sim-identical)
#
# REF_BIN is a weft-sim built from the commit to compare with (e.g. main); its outputs are kept in
# WORKDIR under the binary's checksum, so a second check against the same reference reruns only
# NEW_BIN.  Two cases run at a time (JOBS=n to change).  Exit 0 when every case is identical, 1
# naming the cases that differ.  Takes ~3 minutes on the loaded 2-core machine for a reference
# whose steps scan every worker (main before the indices of sim/README.md, "Speed"), ~15 s after.
set -euo pipefail
ref=${1:?usage: identical_check.sh REF_BIN NEW_BIN [WORKDIR]}
new=${2:?usage: identical_check.sh REF_BIN NEW_BIN [WORKDIR]}
work=${3:-/tmp/weft-sim-identical}
jobs=${JOBS:-2}
ref=$(realpath "$ref"); new=$(realpath "$new")
refdir=$work/ref-$(sha256sum "$ref" | cut -c1-16)
newdir=$work/new
mkdir -p "$refdir" "$newdir"
rm -f "$newdir"/*.json

all=ws,ws-ap,wool,lazy-df,lazy-df2,lazy-bf,heartbeat,adf,dfd,fifo
common="--P 1,2,7,64,1000 --seed 1 --runs 2 --quiet"
# name|arguments (one case per line; the name is the output file's)
cases=$(cat <<EOF
fib18|--dag fib:18 --policy $all
nqueens7|--dag nqueens:7 --policy $all
nqueens8|--dag nqueens:8 --policy ws,lazy-bf,heartbeat,dfd
utsbin|--dag uts-bin:200:8:0.12 --policy $all
utsbin_small|--dag uts-bin:100:4:0.24:3 --policy $all
utsgeo|--dag uts-geo:5:3:2:30 --policy $all
loops|--dag loops:20:50:100 --policy $all
nar|--dag nar:1:1:10 --policy $all
nar_quota|--dag nar:3:1:9 --policy adf,dfd,fifo --cost quota=1,16
nar_quota_big|--dag nar:3:3:9 --policy adf,dfd,fifo --cost quota=64,5000
alg5|--dag alg5:64:100 --policy $all
narlb|--dag nar-lb:64:16:1000 --policy $all
steal0_fib|--dag fib:16 --policy $all --cost steal=0
steal0_loops|--dag loops:20:50:100 --policy $all --cost steal=0
steal0_nar|--dag nar:3:3:9 --policy $all --cost steal=0
calibrated_fib|--dag fib:18 --policy $all --costs calibrated
calibrated_utsgeo|--dag uts-geo:5:3:2:30 --policy $all --costs calibrated
calibrated_loops|--dag loops:20:50:100 --policy $all --costs calibrated
backoff|--dag fib:16:400 --policy ws,wool,lazy-df,lazy-df2,lazy-bf --cost backoff=4000 --cost backoff_small=5000 --cost backoff_first=500 --cost probe=100
hb_spare|--dag fib:17:50 --policy heartbeat --cost hb_spare=1,0 --cost heartbeat=500,3000 --cost probe=0,200
hb_credit|--dag loops:20:50:100 --policy heartbeat --cost hb_thread_credit=1 --cost heartbeat=300 --cost poll=40
slices|--dag fib:15:50 --policy $all --cost slice_on=3000 --cost slice_off=9000
leapfrog0|--dag fib:16 --policy ws,ws-ap,wool,lazy-df,lazy-bf,heartbeat --cost leapfrog=0
detach|--dag loops:20:50:100 --policy ws,ws-ap,lazy-df,lazy-df2,lazy-bf,heartbeat --cost detach=1 --cost ap_defer=0,2000
wool_window|--dag nqueens:7 --policy wool --cost wool_public=1,8 --cost wool_step=1,4
EOF
)

run_case() {  # BIN DIR NAME ARGS...
  local bin=$1 dir=$2 name=$3
  shift 3
  "$bin" "$@" $common --json "$dir/$name.json" 2>/dev/null || { echo "FAILED: $name ($bin)"; return 1; }
}
export -f run_case
export common

todo() {  # the cases whose output is missing in DIR, as "BIN DIR NAME ARGS"
  local bin=$1 dir=$2
  while IFS='|' read -r name args; do
    [ -s "$dir/$name.json" ] || echo "$bin $dir $name $args"
  done <<<"$cases"
}
{ todo "$ref" "$refdir"; todo "$new" "$newdir"; } |
  xargs -P "$jobs" -L 1 bash -c 'run_case "$@"' _

status=0
while IFS='|' read -r name args; do
  if cmp -s "$refdir/$name.json" "$newdir/$name.json"; then
    echo "same      $name ($(grep -c '"policy"' "$newdir/$name.json") runs)"
  else
    echo "DIFFERENT $name: $args   (diff $refdir/$name.json $newdir/$name.json)"
    status=1
  fi
done <<<"$cases"
exit $status
