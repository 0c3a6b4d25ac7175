#!/usr/bin/env bash
# weft's whole test suite, from a fresh clone: installs what it needs, then
#   1. Release build of the library, tests and benchmark binaries; ctest (unit tests, install test,
#      and every benchmark kernel variant at test size with its checksum)
#   2. the unit tests under ThreadSanitizer
#   3. the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   4. the Rust peers (Rayon, chili): cargo test, every kernel at test size
#   5. the benchmark driver: its own tests, and a test-mode run over every system
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc)
stage() { printf '\n=== %s ===\n' "$*"; }

stage "dependencies"
scripts/install-deps.sh
export PATH="$HOME/.cargo/bin:$PATH"

stage "release build + tests"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEFT_BUILD_BENCH=ON >/dev/null
ninja -C build/release
ctest --test-dir build/release --output-on-failure -j "$jobs"

stage "ThreadSanitizer"
cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEFT_SANITIZE=thread -DWEFT_BUILD_TOOLS=OFF >/dev/null
ninja -C build/tsan
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ctest --test-dir build/tsan --output-on-failure -j "$jobs" -LE install

stage "AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEFT_SANITIZE=address -DWEFT_BUILD_TOOLS=OFF >/dev/null
ninja -C build/asan
ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1" ctest --test-dir build/asan --output-on-failure -j "$jobs" -LE install

stage "Rust peers"
(cd bench/rust && cargo test --release --quiet)

stage "benchmark driver"
.venv/bin/python -m pytest -q bench/test_run.py
scripts/build-bench.sh
.venv/bin/python bench/run.py --mode test --out build/test-results

echo
echo "all tests passed"
