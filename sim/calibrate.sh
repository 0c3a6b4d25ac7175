#!/usr/bin/env bash
# weft-sim's calibration on THIS machine, end to end (docs/results/sim.md, "Calibration"; issue 13
# item 4): the real runs (sim/calibrate_real.sh), recordings of nqueens, uts-geo and uts-bin
# (weft-bench-record), the fit of the costs to them (sim/fit_costs.py --out OUT/costs.txt), the
# simulator on the recordings with that fit (sim/calibrate_sim.sh ... file:OUT/costs.txt) and the
# check against the real runs (sim/calibration_table.py).  Afterwards any study can run with this
# machine's costs: weft-sim --costs file:OUT/costs.txt ...
# usage: sim/calibrate.sh BUILD_DIR OUT_DIR [RUNS]   (BUILD_DIR configured with -DWEFT_BUILD_BENCH=ON
#        and built; x86-64, where weft-bench-record exists; ~4 minutes at RUNS = 7 on 2 cores, and no
#        other load: the real runs are timed)
#        SCALE_P="4 8 16": the three recorded kernels also at those worker counts, real and simulated,
#        and a second table comparing T1/TP and steals there (a machine with that many cores;
#        sim/device_calibrate.sh runs this on the device tool's 16-core machine)
set -euo pipefail
build=${1:?build dir}; out=${2:?output dir}; runs=${3:-7}
root=$(cd "$(dirname "$0")/.." && pwd)
python=$root/.venv/bin/python
[ -x "$python" ] || python=python3
mkdir -p "$out/dags"
bash "$root/sim/calibrate_real.sh" "$build" "$out" "$runs"
for k in nqueens uts-geo uts-bin; do
  WEFT_BENCH_RECORD="$out/dags/$k.dag" "$build/bench/weft-bench-record" --kernel "$k" --size quick --workers 1 > /dev/null
done
"$python" "$root/sim/fit_costs.py" "$build/sim/weft-sim" "$out/fib_ratio.txt" "$out/kernels.jsonl" "$out/dags" \
    --steal-cost "$out/steal_cost.txt" --out "$out/costs.txt" --fib-dag "$out/fib_dag.txt"
# SIM_RUNS seeds per policy at P = 2: since stop 62 they sample the steal latency's spread, which
# decides whether a run falls into leapfrog cascades (uts-bin), as 7 real runs sample the runtime's.
FIB_DAG=$(cat "$out/fib_dag.txt") RUNS=${SIM_RUNS:-5} bash "$root/sim/calibrate_sim.sh" "$build/sim/weft-sim" "$out/dags" "$out/sim" "file:$out/costs.txt" 2> /dev/null
"$python" "$root/sim/calibration_table.py" "$out" "$out/sim" | tee "$out/table.md"
