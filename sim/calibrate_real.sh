#!/usr/bin/env bash
# The real-runtime side of weft-sim's calibration (docs/results/sim.md, "Calibration"):
#   1. fib(32): T1/Ts, the 2-worker speedup and steals per run (tools/weft-overhead ratio),
#   2. the cost of a steal, WOOL Table III's method (weft-overhead steal),
#   3. nqueens, uts-geo, uts-bin at --size quick: RUNS runs of the serial elision and of every
#      policy on 1 and 2 workers (bench binaries, JSON lines with the runtime's counters), and on
#      each worker count of SCALE_P as well (e.g. SCALE_P="4 8 16" on a 16-core machine: issue 13
#      item 4's comparison at P > 2; sim/device_calibrate.sh).
# usage: [SCALE_P="4 8 16"] sim/calibrate_real.sh BUILD_DIR OUT_DIR [RUNS]   (BUILD_DIR with -DWEFT_BUILD_BENCH=ON)
set -euo pipefail
build=${1:?build dir}; out=${2:?output dir}; runs=${3:-5}
policies=(ws ws-ap wool lazy-df lazy-df2 lazy-bf heartbeat)
read -r -a scale <<< "${SCALE_P:-}"
for w in "${scale[@]}"; do
  [[ "$w" =~ ^[0-9]+$ && "$w" -gt 2 ]] || { echo "calibrate_real.sh: SCALE_P must list worker counts above 2, got '$w'" >&2; exit 2; }
done
mkdir -p "$out"
uptime > "$out/load.txt"
"$build/tools/weft-overhead" ratio 32 "$runs" serial "${policies[@]}" > "$out/fib_ratio.txt"
"$build/tools/weft-overhead" steal 20000 500 "$runs" "${policies[@]}" > "$out/steal_cost.txt"
: > "$out/kernels.jsonl"
for k in nqueens uts-geo uts-bin; do
  for r in $(seq "$runs"); do
    "$build/bench/weft-bench-serial" --kernel "$k" --size quick --workers 1 >> "$out/kernels.jsonl"
    for p in "${policies[@]}"; do
      for w in 1 2 "${scale[@]}"; do
        "$build/bench/weft-bench-weft" --kernel "$k" --size quick --workers $w --policy "$p" >> "$out/kernels.jsonl"
      done
    done
  done
done
uptime >> "$out/load.txt"
