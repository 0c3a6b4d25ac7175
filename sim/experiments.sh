#!/usr/bin/env bash
# Runs the simulator studies of docs/results/sim.md and draws their figures.
#   sim/experiments.sh [build-dir]   (default build-sim, relative to the repository root or absolute;
#                                    needs weft-sim built in Release)
#   COSTS=file:OUT/costs.txt sim/experiments.sh ...   runs the recorded-kernel studies with a
#   machine's own fit (sim/calibrate.sh) instead of the built-in `calibrated` preset
# JSON results and PNG figures go to docs/results/sim/. About 17 minutes on one core, 25 more
# with the recorded kernels (when the build has weft-bench-record).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# A second argument was ignored, and the studies ran over docs/results/sim regardless.
[ $# -le 1 ] || { echo "experiments.sh: $# arguments, at most one (the build folder); COSTS=... goes in the environment" >&2
                  echo "usage: sim/experiments.sh [BUILD_DIR=build-sim]" >&2; exit 2; }
build=${1:-build-sim}
[[ $build == /* ]] || build="$root/$build"  # relative to the repository root, or absolute
sim="$build/sim/weft-sim"
[ -x "$sim" ] || { echo "experiments.sh: no $sim (build it: ninja -C $build weft-sim)" >&2
                   echo "usage: sim/experiments.sh [BUILD_DIR=build-sim]" >&2; exit 2; }
out="$root/docs/results/sim"
py="${PYTHON:-$root/.venv/bin/python}"
mkdir -p "$out"
run() { echo "+ weft-sim $*" >&2; "$sim" --quiet "$@"; }

# LS Table V and Figs 4-7: thefts and speedup of the four LS schedulers on declarative nqueens.
run --dag nqueens:12 --policy lazy-df,lazy-df2,lazy-bf,ws-ap --P 8,24,64 --runs 5 --json "$out/ls_table5.json"
run --dag nqueens:12 --policy lazy-df,lazy-df2,lazy-bf,ws-ap --P 1,2,4,8,16,24,32,64,128,256 \
    --json "$out/ls_scaling.json"
# LS's TBB regime (stop 61): a check before a piece's first task (LS Fig. 3), random steals from
# waiting loops, TBB's detached range tasks, cheap failed looks; then which of them it needs
# (nqueens:11, seed 1), the failed look's cost, and nqueens:13.  About 7 minutes.
run --dag nqueens:12 --policy lazy-df,lazy-df2,lazy-bf,ws-ap --P 8,24,64 --runs 5 --cost detach=1 \
    --cost leapfrog=0 --cost probe=20 --cost poll_first=1 --json "$out/ls_table5_tbb_regime.json"
run --dag nqueens:11 --policy lazy-df,lazy-df2,lazy-bf,ws-ap --P 8,24,64 --cost probe=20 \
    --cost poll_first=0,1 --cost detach=0,1 --cost leapfrog=0,1 --json "$out/ls_table5_tbb_ablation.json"
run --dag nqueens:11 --policy lazy-df,lazy-df2,lazy-bf --P 8,24,64 --cost detach=1 --cost leapfrog=0 \
    --cost poll_first=1 --cost probe=5,20,50,100,200,500,0 --json "$out/ls_table5_tbb_probe.json"
run --dag nqueens:13 --policy lazy-df,lazy-df2,lazy-bf --P 8,24,64 --cost detach=1 --cost leapfrog=0 \
    --cost probe=20 --cost poll_first=1 --json "$out/ls_table5_tbb_regime_n13.json"
# HB Theorems 2-3 over a sweep of N (tau = promote = 100, no other overhead), per-thread credit
# (HB's semantics) and per-worker credit (the runtime's beat).
for d in fib:25 nqueens:10 loops:64:4096:20; do
  run --dag "$d" --policy heartbeat --P 1,64 --cost join=0 --cost check=0 --cost pop=0 --cost sync=0 \
      --cost promote=100 --cost hb_thread_credit=0,1 --cost heartbeat=100,200,500,1000,2000,5000,10000 \
      --json "$out/hb_${d//:/_}.json"
done
# NAR Corollary 6.8: work stealing's memory on Theorem 6.7's DAG grows as p·D·A (S1 = A).
run --dag nar-lb:64:200:1000 --policy ws,lazy-bf,heartbeat,wool --P 64 --runs 3 --cost steal=1 \
    --cost promote=0 --cost join=0 --cost pop=0 --cost sync=0 --cost check=0 --cost heartbeat=20 \
    --json "$out/nar_lb_p64.json"
for p in 8 16 32 128; do
  run --dag nar-lb:$p:200:1000 --policy ws --P $p --runs 3 --cost steal=1 --cost promote=0 --cost join=0 \
      --cost pop=0 --cost sync=0 --cost check=0 --json "$out/nar_lb_p$p.json"
done
for D in 50 100 400; do
  run --dag nar-lb:64:$D:1000 --policy ws --P 64 --runs 3 --cost steal=1 --cost promote=0 --cost join=0 \
      --cost pop=0 --cost sync=0 --cost check=0 --json "$out/nar_lb_D$D.json"
done
# NAR Figs 7.9-7.12: memory and scheduling granularity vs K, depth-15 trees, 64 processors, one
# timestep per action and per steal (NAR §7.2.2); K = 0 is K = ∞ (dfd is then NAR's WS).
for t in nar:3:1 nar:3:3 nar:1:2 nar:2:2; do
  run --dag "$t:15" --policy dfd,adf --P 64 --runs 3 --cost steal=1 --cost promote=0 --cost join=0 \
      --cost pop=0 --cost sync=0 --cost check=0 --cost quota=0,100000,30000,10000,3000,1000,300,100 \
      --json "$out/narK_${t//:/_}.json"
done
# NAR Theorem 6.7 DAG under the thread schedulers, K from ∞ down below A = 1000.
run --dag nar-lb:64:200:1000 --policy dfd,adf,fifo --P 64 --runs 3 --cost steal=1 --cost promote=0 \
    --cost join=0 --cost pop=0 --cost sync=0 --cost check=0 --cost quota=0,1000,100,10 \
    --json "$out/nar_lb_threads.json"
# NAR §7.2 trees (depth 15, 64 processors, unit-step costs): memory high-water per policy.
for t in nar:3:1 nar:3:3 nar:1:2 nar:2:2; do
  run --dag "$t:15" --policy ws,lazy-bf,lazy-df,heartbeat,wool,fifo --P 64 --runs 3 --cost steal=1 --cost promote=0 \
      --cost join=0 --cost pop=0 --cost sync=0 --cost check=0 --cost heartbeat=20 --json "$out/${t//:/_}.json"
done
# Projected speedups to 256 processors, every simulated policy, default costs.
for d in fib:30 nqueens:12 uts-geo:8:4:19:50 uts-bin:20000:8:0.12:42; do
  run --dag "$d" --policy ws,ws-ap,wool,lazy-df,lazy-df2,lazy-bf,heartbeat,dfd,adf --P 1,2,4,8,16,32,64,128,256 \
      --json "$out/proj_${d//[:.]/_}.json"
done
# Recorded real kernels (weft-bench-record, a build with -DWEFT_BUILD_BENCH=ON) and the
# calibrated costs: LS Table V on the recorded nqueens(12) (--size quick), uts-geo projected to P = 256.
record="$build/bench/weft-bench-record"
if [ -x "$record" ]; then
  dags=$(mktemp -d)
  for k in nqueens uts-geo uts-bin; do
    WEFT_BENCH_RECORD="$dags/$k.dag" "$record" --kernel $k --size quick --workers 1 >/dev/null
  done
  run --dag "file:$dags/nqueens.dag" --costs "${COSTS:-calibrated}" --policy lazy-df,lazy-df2,lazy-bf,ws-ap --P 8,24,64 \
      --runs 5 --json "$out/ls_table5_calibrated.json"
  run --dag "file:$dags/uts-geo.dag" --costs "${COSTS:-calibrated}" --policy ws,ws-ap,wool,lazy-df,lazy-df2,lazy-bf,heartbeat \
      --P 1,4,16,64,256 --json "$out/recorded_uts_geo.json"
  "$py" "$root/sim/plot.py" speedup "$out/recorded_uts_geo.json" "$out/recorded_uts_geo.png"
  echo "calibration check on this machine: sim/calibrate.sh BUILD DIR (docs/results/sim.md)" >&2
fi
"$py" "$root/sim/plot.py" all "$out"
