#!/usr/bin/env bash
# Builds everything the benchmark driver runs: the library, tests, tools and the C++ benchmark
# binaries (serial, weft, oneTBB, OpenMP/libgomp) in build/, the OpenMP binary with clang's libomp in
# build-clang/, and the Rust peers (Rayon, chili) in bench/rust/target/release.
#
# The last two are peers, not weft: without clang++ (or its libomp), or without cargo, they are
# skipped with a message saying so, and bench/run.py reports their columns missing with the
# reason (a machine without Rust still gets the comparison of the others; a binary an earlier
# build left is not removed, and is run).  A peer whose tool is there but whose build fails is an
# error, as any failed build is.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$HOME/.cargo/bin:$PATH"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEFT_BUILD_BENCH=ON >/dev/null
ninja -C build

skipped=()
if ! command -v clang++ >/dev/null 2>&1; then
  skipped+=("omp-clang (weft-bench-omp-clang): no clang++ on PATH (Debian: apt-get install clang libomp-dev)")
elif ! log=$(cmake -S bench -B build-clang -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
               -DWEFT_BENCH_OMP_ONLY=ON 2>&1); then
  # WEFT_BENCH_OMP_ONLY stops the configuration when clang has no OpenMP (libomp-dev missing)
  why=$(printf '%s\n' "$log" | grep -m1 -A2 'Error' | tr -s ' \n' ' ' || true)
  skipped+=("omp-clang (weft-bench-omp-clang): configuring build-clang/ failed: ${why:-see cmake -S bench -B build-clang}")
else
  ninja -C build-clang
fi
if ! command -v cargo >/dev/null 2>&1; then
  skipped+=("rayon, chili (weft-bench-rayon, weft-bench-chili): no cargo on PATH or in ~/.cargo/bin (Debian: apt-get install cargo)")
else
  cargo build --release --quiet --manifest-path bench/rust/Cargo.toml
fi
for s in "${skipped[@]}"; do
  echo "build-bench: skipped the peer $s" >&2
done
