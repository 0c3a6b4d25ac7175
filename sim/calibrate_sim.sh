#!/usr/bin/env bash
# The simulator's side of the calibration check (docs/results/sim.md, "Calibration"): every
# policy at P = 1 and 2 on the programs sim/calibrate_real.sh ran, with --costs "$costs", on
# dedicated processors and (P = 2) time-shared as the loaded development VM shares them.
# usage: sim/calibrate_sim.sh WEFT_SIM DAG_DIR OUT_DIR [COSTS]   (DAG_DIR: the recorded nqueens,
#        uts-geo and uts-bin .dag files of weft-bench-record --size quick; COSTS: a --costs value,
#        `calibrated` (the built-in preset) unless given, e.g. file:OUT/costs.txt from sim/fit_costs.py --out)
#        FIB_DAG: fib's DAG, fib:32:W with W the serial time per call of the machine the costs were fitted
#        on (sim/fit_costs.py --fib-dag writes it); fib:32:4 (the built-in preset's Intel VM) unless set.
#        Another W puts the fitted join costs over more or less work than the fit did (the AMD VM of
#        stop 31 measured W = 10: checked at 4, its fib rows read T1/Ts 4.4 against a real 2.4).
#        SCALE_P: more processor counts for the recorded programs on dedicated processors (as
#        sim/calibrate_real.sh ran them), e.g. "4 8 16".
#        SIM_JOBS: simulator processes at a time, one per program, policy and variant (default: the
#        machine's cores; a recorded uts-bin at P = 16 takes ~30 s a policy at RUNS = 2 here).
set -euo pipefail
sim=${1:?weft-sim}; dags=${2:?dag dir}; out=${3:?out dir}; costs=${4:-calibrated}
policies=(ws ws-ap wool lazy-df lazy-df2 lazy-bf heartbeat)
slices="--cost slice_on=30000000 --cost slice_off=20000000"  # 3 ms on, 2 ms off (0.1 ns units)
procs=2
for w in ${SCALE_P:-}; do procs=$procs,$w; done
runs=${RUNS:-3}
mkdir -p "$out/parts"
# One line per simulator run: program, policy, variant, seeds, and its arguments (dag, P, extra
# costs).  P = 1 once: one processor steals nothing, so every seed runs the same schedule.  At
# P = 2 the seeds differ only through the steal's latency spread (steal_jitter, on in the
# calibrated preset since stop 62): the victim choice is forced there.
for prog in fib nqueens uts-geo uts-bin; do
  dag=file:$dags/$prog.dag
  [ "$prog" = fib ] && dag=${FIB_DAG:-fib:32:4}
  P=2
  [ "$prog" = fib ] || P=$procs  # fib's real runs are weft-overhead's, at 1 and 2 workers only
  for p in "${policies[@]}"; do
    echo "$prog $p one 1 $dag 1"
    echo "$prog $p dedicated $runs $dag $P"
    echo "$prog $p sliced $runs $dag 2 $slices"
  done
done | xargs -P "${SIM_JOBS:-$(nproc)}" -L 1 sh -c '
  prog=$1 p=$2 variant=$3 seeds=$4 dag=$5 P=$6; shift 6
  exec "$0" --quiet --dag "$dag" --policy "$p" --P "$P" --costs "'"$costs"'" --runs "$seeds" "$@" \
      --json "'"$out"'/parts/$prog.$variant.$p.json"' "$sim"
# The parts merged per program and variant, in the policies' order: PROG.json (P = 1, then the
# dedicated P >= 2), PROG.sliced.json.
python3 - "$out" "${policies[@]}" <<'MERGE'
import json, sys
out, policies = sys.argv[1], sys.argv[2:]
for prog in ("fib", "nqueens", "uts-geo", "uts-bin"):
    for variants, name in ((("one", "dedicated"), f"{prog}.json"), (("sliced",), f"{prog}.sliced.json")):
        runs = [r for p in policies for v in variants for r in json.load(open(f"{out}/parts/{prog}.{v}.{p}.json"))["runs"]]
        json.dump({"runs": runs}, open(f"{out}/{name}", "w"))
MERGE
