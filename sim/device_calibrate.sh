#!/usr/bin/env bash
# Issue 13 item 4 at P = 4, 8 and 16: sim/calibrate.sh (real runs, recordings, fit, simulator,
# check) on a machine of many cores, from binaries built HERE and carried THERE.  The 16-core
# machine the `device` tool lends to some sessions has no network, no Boost and none of our
# packages (docs/results/sim.md, "Calibration at P > 2"), so nothing is built there:
#
#   here:   sim/device_calibrate.sh bundle BUILD_DIR
#             copies the five programs calibrate.sh runs (BUILD_DIR configured with
#             -DWEFT_BUILD_BENCH=ON and built) and the one shared library of ours they load
#             (Boost.Context) into .device-bundle/ (ignored by git; ~3 MB), laid out as a build
#             directory;
#   there:  sim/device_calibrate.sh run OUT_DIR [RUNS]
#             (the device call: carry [".device-bundle"], command
#             `bash sim/device_calibrate.sh run $OUT 3`, timeout_s 540) runs sim/calibrate.sh on the
#             bundle with SCALE_P (default "4 8 16"; RUNS runs of each real program, default 3) and
#             leaves OUT_DIR/table.md (the check, its second table the comparison at P > 2),
#             OUT_DIR/machine.txt, OUT_DIR/calibrate.log and the rest but the recordings as
#             OUT_DIR/calibration.tar.gz (the device returns at most 8 files).  Estimated 5-6 minutes
#             on 16 cores at RUNS = 3 (here, 2 cores at SCALE_P="3 4" and RUNS = 2: 2 minutes of real
#             runs and 2 of simulation, SIM_JOBS = 2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bundle=$root/.device-bundle
programs=(bench/weft-bench-serial bench/weft-bench-weft bench/weft-bench-record tools/weft-overhead sim/weft-sim)

case "${1:-}" in
  bundle)
    build=$(cd "${2:?usage: sim/device_calibrate.sh bundle BUILD_DIR}" && pwd)
    rm -rf "$bundle"
    mkdir -p "$bundle/lib"
    for p in "${programs[@]}"; do
      [ -x "$build/$p" ] || { echo "device_calibrate.sh: $build/$p is missing (configure with -DWEFT_BUILD_BENCH=ON and build)" >&2; exit 2; }
      mkdir -p "$bundle/$(dirname "$p")"
      cp "$build/$p" "$bundle/$p"
      # Boost.Context is the one library of ours the device's image lacks; the C and C++ runtimes
      # are the image's own (newer than the ones built against, so they serve).
      ldd "$build/$p" | awk '/libboost_/ {print $3}' | while read -r lib; do cp -L "$lib" "$bundle/lib/"; done
    done
    du -sh "$bundle"
    ;;
  run)
    out=${2:?usage: sim/device_calibrate.sh run OUT_DIR [RUNS]}
    runs=${3:-3}
    mkdir -p "$out"
    work=$(mktemp -d)
    export LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    { date -u; uname -a; nproc; lscpu 2>/dev/null || cat /proc/cpuinfo | grep -m1 "model name"; uptime; } > "$out/machine.txt"
    for p in "${programs[@]}"; do
      if ldd "$bundle/$p" | grep "not found"; then
        echo "device_calibrate.sh: $p cannot load the libraries above on this machine" >&2
        exit 2
      fi
    done
    status=0
    # Two seeds, as before stop 62 raised calibrate.sh's default to 5: the 540 s budget was sized
    # for them (a recorded uts-bin at P = 16 takes ~30 s a policy at two).
    SIM_RUNS=${SIM_RUNS:-2} SCALE_P=${SCALE_P:-4 8 16} bash "$root/sim/calibrate.sh" "$bundle" "$work/cal" "$runs" > "$out/calibrate.log" 2>&1 || status=$?
    # What was made, also after a failure; the recordings stay behind (~40 MB compressed; a file
    # that comes back holds at most 16 MiB).
    tar -czf "$out/calibration.tar.gz" --exclude=cal/dags --exclude=cal/sim/parts -C "$work" cal
    if [ "$status" -ne 0 ]; then
      echo "device_calibrate.sh: sim/calibrate.sh failed ($status); see calibrate.log" >&2
      exit "$status"
    fi
    cp "$work/cal/table.md" "$out/table.md"
    cat "$out/table.md"
    ;;
  *)
    echo "usage: sim/device_calibrate.sh bundle BUILD_DIR | run OUT_DIR [RUNS]" >&2
    exit 2
    ;;
esac
