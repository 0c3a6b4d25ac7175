#!/usr/bin/env bash
# Builds everything the benchmark driver runs: the library, tests, tools and the C++ benchmark
# binaries (serial, weft, oneTBB, OpenMP/libgomp) in build/, the OpenMP binary with clang's libomp in
# build-clang/, and the Rust peers (Rayon, chili) in bench/rust/target/release.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$HOME/.cargo/bin:$PATH"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEFT_BUILD_BENCH=ON >/dev/null
ninja -C build
cmake -S bench -B build-clang -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ -DWEFT_BENCH_OMP_ONLY=ON >/dev/null
ninja -C build-clang
cargo build --release --quiet --manifest-path bench/rust/Cargo.toml
