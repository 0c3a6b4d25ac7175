"""scripts/build-bench.sh with fake build tools on PATH: the optional peers (clang's libomp binary,
the Rust peers) are skipped with a message when their tool is missing, instead of the whole build
(and scripts/bench.sh with it) stopping after the C++ binaries were built."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent.parent / "scripts" / "build-bench.sh"
BASIC = ("bash", "dirname", "grep", "tr")

# cmake as the real one fails when CMAKE_CXX_COMPILER is not on PATH; FAKE_NO_LIBOMP: the
# WEFT_BENCH_OMP_ONLY configuration fails as it does without libomp-dev
FAKE_CMAKE = """#!/bin/bash
echo "cmake $*" >> "$FAKE_LOG"
for a in "$@"; do
  case "$a" in
    -DCMAKE_CXX_COMPILER=*) c=${a#*=}
      if ! command -v "$c" >/dev/null; then
        echo "CMake Error: CMAKE_CXX_COMPILER $c not found" >&2; exit 1
      fi;;
  esac
done
if [ -n "${FAKE_NO_LIBOMP:-}" ] && [[ " $* " == *WEFT_BENCH_OMP_ONLY=ON* ]]; then
  echo "CMake Error at CMakeLists.txt:215 (message):" >&2
  echo "  WEFT_BENCH_OMP_ONLY: no OpenMP for Clang (Debian: install libomp-dev for clang)" >&2
  exit 1
fi
"""
LOGGING = '#!/bin/bash\necho "${0##*/} $*" >> "$FAKE_LOG"\nexit ${FAKE_RC:-0}\n'


def run(tmp_path, tools, env=None):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for b in BASIC:
        os.symlink(shutil.which(b), bin_dir / b)
    for name, body in tools.items():
        (bin_dir / name).write_text(body)
        (bin_dir / name).chmod(0o755)
    log = tmp_path / "log"
    e = {"PATH": str(bin_dir), "HOME": str(tmp_path), "FAKE_LOG": str(log), **(env or {})}
    r = subprocess.run([shutil.which("bash"), str(SCRIPT)], capture_output=True, text=True, env=e,
                       timeout=60)
    return r, (log.read_text().splitlines() if log.exists() else [])


@pytest.mark.skipif(not all(shutil.which(b) for b in BASIC), reason="no bash/dirname/grep/tr")
def test_missing_peers_are_skipped_with_a_message(tmp_path):
    # neither clang++ nor cargo: the C++ build is done, both peers are named as skipped, exit 0
    r, log = run(tmp_path, {"cmake": FAKE_CMAKE, "ninja": LOGGING})
    assert r.returncode == 0, r.stderr
    assert log[1] == "ninja -C build" and not any("build-clang" in x for x in log[2:])
    assert "skipped the peer omp-clang (weft-bench-omp-clang): no clang++ on PATH" in r.stderr
    assert "skipped the peer rayon, chili (weft-bench-rayon, weft-bench-chili): no cargo" in r.stderr


@pytest.mark.skipif(not all(shutil.which(b) for b in BASIC), reason="no bash/dirname/grep/tr")
def test_clang_without_libomp_is_skipped_and_a_failed_peer_build_is_an_error(tmp_path):
    tools = {"cmake": FAKE_CMAKE, "ninja": LOGGING, "clang++": LOGGING, "cargo": LOGGING}
    r, log = run(tmp_path, tools, {"FAKE_NO_LIBOMP": "1"})
    assert r.returncode == 0, r.stderr
    assert "skipped the peer omp-clang (weft-bench-omp-clang): configuring build-clang/ failed: " \
           "CMake Error at CMakeLists.txt:215 (message): WEFT_BENCH_OMP_ONLY: no OpenMP for Clang" \
           in r.stderr
    assert "ninja -C build-clang" not in log and log[-1].startswith("cargo build --release")
    # cargo is there but its build fails: an error, not a skip
    (tmp_path / "again").mkdir()
    tools["cargo"] = '#!/bin/bash\necho "error: could not compile" >&2\nexit 101\n'
    r, _ = run(tmp_path / "again", tools)
    assert r.returncode == 101 and "could not compile" in r.stderr and "skipped" not in r.stderr
