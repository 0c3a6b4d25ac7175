#!/usr/bin/env bash
# weft's whole test suite, from a fresh clone: installs what it needs, then
#   0. the model checks of the cross-thread protocols (verify/run.sh: Spin and loom)
#   1. Release build of the library, tests, tools, simulator and benchmark binaries (C++ and Rust);
#      ctest (unit and component tests, install test, the simulator's tests, and every benchmark
#      kernel variant at test size with its checksum)
#   2. the unit tests under ThreadSanitizer
#   3. the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   4. chaos: random yields and spins at every protocol point (-DWEFT_CHAOS=ON), the random-program,
#      exception, loop-failure and shutdown-race tests with 8, 16 and 32 workers pinned to one core
#   5. the Rust peers (Rayon, chili): cargo test, every kernel at test size
#   6. the benchmark driver: its own tests, and a test-mode run over every system
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc)
stages=0
# Each stage's header says when it starts (seconds since the script began: where CI's time goes).
stage() { printf '\n=== %s (at %d s) ===\n' "$*" "$SECONDS"; stages=$((stages + 1)); }

stage "dependencies"
scripts/install-deps.sh
export PATH="$HOME/.cargo/bin:$PATH"

stage "model checks (Spin: Wool's state word, sleep/wake; loom: deque, Wool steal/join, sleep/wake)"
verify/run.sh

stage "release build (library, tests, tools, benchmark binaries, simulator, Rust peers)"
scripts/build-bench.sh
stage "release tests (unit tests, install test, every benchmark variant at test size)"
ctest --test-dir build --output-on-failure -j "$jobs"
(cd build-clang && ctest --output-on-failure -j "$jobs")

# The sanitizer stages leave out the tests that only compile (tests/compile: what must and must not
# compile), the install test (a consumer project built against an installed copy) and the subproject
# test (a parent project that adds weft, configured only): they run the compiler or CMake, not weft,
# and the release stage has run them (~2 min of the two stages' time).
compiler_only='^(compile_|install_consumer$|subproject_consumer$)'
# Worker counts (the policy x workers tests; the release stage runs 1,2,4,8).  ThreadSanitizer: 2
# (a worker per core, truly parallel interleavings) and 8 (oversubscribed: threads preempted inside
# the protocols' windows); a pool of one worker has only its caller beside it, and the caller's
# protocols (root jobs, lent slots) run at every count.  AddressSanitizer: 1 (every join and loop
# piece inline, the fast paths' frames) and 8 (steals, leapfrogs, lent slots, frames freed by
# another thread).  4 adds nothing that 2 and 8 lack; the two lists take ~35 % off both stages.
# ThreadSanitizer builds at -O1 (and -g1, CMakeLists.txt): the sanitizers' recommended level, half
# the compile time of -O2 for the test files, and no slower to run (810 ASan tests: 67 s at -O1, 78 s
# at -O2).  AddressSanitizer builds the runtime and its tests at -O0: half the compile time again
# (test_loops.cpp 97 s -> 44 s; the stage's build 336 s -> ~215 s of wall time) for ~30 s more of
# test time, and at -O0 ASan instruments every access of the source (none is optimized away); the
# simulator's code stays at -O1 (WEFT_SIM_COMPILE_OPTIONS), its tests being arithmetic that -O0
# slows 5x (stop 63).  Both sanitizer builds leave the loop pieces' speed-only forced inlining to the
# compiler (WEFT_NO_FORCED_INLINE, include/weft/detail/frame.hpp): ~25 % less to compile in the loop
# tests (stop 66).
sanitizer_opt=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -DNDEBUG")
asan_opt=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -DNDEBUG" -DWEFT_SIM_COMPILE_OPTIONS=-O1)

stage "ThreadSanitizer"
cmake -S . -B build-tsan -G Ninja "${sanitizer_opt[@]}" -DWEFT_SANITIZE=thread -DWEFT_BUILD_TOOLS=OFF -DWEFT_BUILD_SIM=OFF \
  -DWEFT_TEST_WORKERS=2,8 >/dev/null
ninja -C build-tsan
# atexit_sleep_ms: a process that exits with threads still running (a death test's child, a test of
# the global pool or of exit() from a task) sleeps this long first, so that those threads' races
# with the exit are seen; ThreadSanitizer's default, 1 s, made Lifecycle.ExitFromATaskOfAStaticPool
# (22 such children) take 16.8 s, 3.5 s with 100 ms (stop 66) -- still a long time for a running
# worker to touch what exit() destroys.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 die_after_fork=0 atexit_sleep_ms=100" ctest --test-dir build-tsan --output-on-failure -j "$jobs" -E "$compiler_only"

stage "AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build-asan -G Ninja "${asan_opt[@]}" -DWEFT_SANITIZE=address -DWEFT_BUILD_TOOLS=OFF \
  -DWEFT_TEST_WORKERS=1,8 >/dev/null
ninja -C build-asan
ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1" UBSAN_OPTIONS="print_stacktrace=1" ctest --test-dir build-asan --output-on-failure -j "$jobs" -E "$compiler_only"

# Every protocol point (include/weft/detail/chaos.hpp) yields or spins at random; with up to 32 workers on one core a
# thread is often descheduled inside a protocol's window (a thief between its CAS and its STOLEN
# store, a sleeper between announcing and checking), which a multi-core run rarely shows.  The
# invariant checks (WEFT_CHECKS) are on.  About 1.5 min on the 2-core machine.
# Only the files holding the suites the regex below selects are compiled (WEFT_TEST_SOURCES).
chaos_sources="test_random.cpp;test_exceptions.cpp;test_loop_failures.cpp;test_lifecycle.cpp;test_edges.cpp;test_fibers.cpp;test_run_entry.cpp;test_threads.cpp"
stage "chaos: random programs, exceptions, loop failures, shutdown races; 8/16/32 workers on one core, random delays at protocol points"
# -O1 and line tables only (-g1, as the sanitizer builds): a report's stack has its files and lines,
# and the files compile in under half the time of -O2 -g (test_exceptions.cpp: 21 s of CPU with -g,
# 14 s with -g1, stop 59; test_loops.cpp 59 s at -O2, 39 s at -O1, stop 66).  What the stage looks for
# is the interleavings its delays make; the release stage runs the same tests at -O3.
cmake -S . -B build-chaos -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  -DWEFT_CHAOS=ON -DWEFT_BUILD_TOOLS=OFF \
  -DWEFT_TEST_WORKERS=8,16,32 -DWEFT_TEST_SCALE=1 -DWEFT_TEST_SOURCES="$chaos_sources" >/dev/null
ninja -C build-chaos weft_tests
# The chaos tests hold core 0 only: the Rust peers' tests (the next stage: their build, ~30 s of one
# core, and a second of tests) run meanwhile on core 1, their output kept for their stage (stop 66).
# On one core: in turn.
rust_log=$(mktemp)
# The Rust peers' tests, the command prefixed by "$@" (taskset), output to rust_log.  It ends in
# exec: call it in a subshell (or with &, whose pid is then cargo's, for the trap below).
rust_peer_tests() { cd bench/rust && exec "$@" cargo test --profile release-tests --quiet >"$rust_log" 2>&1; }
rust_pid=""
if [ "$jobs" -ge 2 ]; then
  rust_peer_tests taskset -c 1 &
  rust_pid=$!
  trap 'kill "$rust_pid" 2>/dev/null || true' EXIT  # a failing chaos run leaves no cargo behind
fi
taskset -c 0 ctest --test-dir build-chaos --output-on-failure -j 2 -R '(RandomPrograms|Exceptions|LoopFailures|ShutdownRace)'

stage "Rust peers"
rust_status=0
if [ -n "$rust_pid" ]; then
  wait "$rust_pid" || rust_status=$?
  trap - EXIT
else
  (rust_peer_tests) || rust_status=$?
fi
cat "$rust_log"
rm -f "$rust_log"
if [ "$rust_status" -ne 0 ]; then
  echo "Rust peers: cargo test failed (exit status $rust_status)" >&2
  exit "$rust_status"
fi

stage "benchmark driver: its tests, then every kernel x system x policy at test size"
# Four at a time (pytest-xdist): the tests run fake or real benchmark binaries and mostly wait for
# them; each has its own tmp_path.  55 s one at a time in stop 58's rehearsal.
.venv/bin/python -m pytest -q -n 4 bench/tests tools/tests
.venv/bin/python bench/run.py --mode test --policies all --out build/test-results

echo
echo "all tests passed"
# Every stage above exits the script on failure (set -e), so reaching here means all passed.
echo "stages: ${stages} passed, 0 failed"
