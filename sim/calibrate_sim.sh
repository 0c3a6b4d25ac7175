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
set -euo pipefail
sim=${1:?weft-sim}; dags=${2:?dag dir}; out=${3:?out dir}; costs=${4:-calibrated}
policies=ws,ws-ap,wool,lazy-df,lazy-df2,lazy-bf,heartbeat
slices=(--cost slice_on=30000000 --cost slice_off=20000000)  # 3 ms on, 2 ms off (0.1 ns units)
mkdir -p "$out"
for prog in fib nqueens uts-geo uts-bin; do
  dag=file:$dags/$prog.dag
  [ "$prog" = fib ] && dag=${FIB_DAG:-fib:32:4}
  "$sim" --quiet --dag "$dag" --policy $policies --P 1,2 --costs "$costs" --runs "${RUNS:-3}" --json "$out/$prog.json"
  "$sim" --quiet --dag "$dag" --policy $policies --P 2 --costs "$costs" --runs "${RUNS:-3}" "${slices[@]}" --json "$out/$prog.sliced.json"
done
