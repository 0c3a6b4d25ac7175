#!/usr/bin/env bash
# Installs what weft's build, tests and benchmarks need on a fresh Debian machine (as root, or
# through sudo): compilers, CMake + Ninja, GoogleTest, oneTBB, OpenMP (gcc's libgomp comes with
# g++, clang's libomp from libomp-dev), valgrind, hyperfine, GNU time (the peak RSS of
# bench/tools/nar_memory.py), Python's pip, Spin (the model checker
# of verify/spin); then matplotlib and pytest from PyPI, Rust through the machine's cargo (rustup)
# if it is missing, and the crates of the loom models (verify/loom).
set -euo pipefail
packages=(build-essential g++ clang cmake ninja-build googletest libgtest-dev libtbb-dev libomp-dev
          valgrind hyperfine python3 python3-pip python3-venv git curl ca-certificates spin
          nlohmann-json3-dev libboost-context-dev time)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: apt-get install ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Python tools in a project-local virtual environment (no system pip changes).
root=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x "$root/.venv/bin/python" ]; then
  python3 -m venv "$root/.venv"
fi
# pytest-xdist runs the driver's tests in parallel (scripts/test.sh: most of them wait on processes).
"$root/.venv/bin/python" -m pip install -q --disable-pip-version-check -r "$root/bench/requirements.txt" pytest \
  pytest-xdist==3.8.0
# Rust (for the Rayon and chili peers of the benchmark suite).
if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    DEBIAN_FRONTEND=noninteractive ${sudo_cmd:-} apt-get install -y -qq cargo rustc >/dev/null
  fi
fi
# The loom models' crates (verify/run.sh builds them with --locked).
(cd "$root/verify/loom" && cargo fetch --locked -q)
echo "install-deps: ok"
