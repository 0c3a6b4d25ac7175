#!/usr/bin/env bash
# The main job: installs what it needs, builds everything, and runs the benchmark comparison
# (weft's policies beside oneTBB, OpenMP, Rayon and chili) at quick sizes; writes
# docs/results/latest.md (report), results.json/csv and PNG plots.  Extra arguments go to
# bench/run.py (e.g. --mode full, --kernels fib,nqueens, --policies all).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh
scripts/build-bench.sh
exec .venv/bin/python bench/run.py --mode quick "$@"
