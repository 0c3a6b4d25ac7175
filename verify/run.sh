#!/usr/bin/env bash
# Runs every model check of verify/ (see verify/README.md): the Spin models of Wool's state-word
# protocol and of the sleep/wake handshake, each correct configuration expected to verify and each
# deliberately broken variant expected to be caught; then the loom models (cargo test), whose
# broken variants are `should_panic` tests.  Installs nothing (scripts/install-deps.sh does).
# Exits non-zero on any failure; the last line is "verify: N passed, M failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
passed=0
failed=0
for tool in spin gcc cargo; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "verify: '$tool' not found (scripts/install-deps.sh installs it)" >&2
    echo "verify: 0 passed, 1 failed"
    exit 1
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# spin_check NAME MODEL EXPECT DEFINES...   EXPECT: pass (no error) or fail (an error is found)
spin_check() {
  local name=$1 model=$2 expect=$3
  shift 3
  local dir="$work/$name"
  mkdir -p "$dir"
  cp "$here/spin/$model" "$dir/"
  local out
  if ! out=$(cd "$dir" && spin "$@" -a "$model" 2>&1 &&
             gcc -O0 -DSAFETY -DCOLLAPSE -DMEMLIM=2048 -o pan pan.c 2>&1 &&
             ./pan -m200000 2>&1); then
    [ -n "$out" ] || out="(no output)"
  fi
  # -O0: pan.c of wool.pml takes ~20 s to compile at -O2 for a ~1.5x faster search: not worth it
  local errors states
  errors=$(printf '%s\n' "$out" | sed -n 's/.*errors: \([0-9]*\).*/\1/p' | tail -1)
  states=$(printf '%s\n' "$out" | sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' | tail -1)
  local what
  what=$(printf '%s\n' "$out" | grep -m1 -E "assertion violated|invalid end state|error:" || true)
  if [ -z "$errors" ]; then
    echo "FAIL  spin $name: no verdict"; printf '%s\n' "$out" | tail -5; return
  fi
  if printf '%s\n' "$out" | grep -q "max search depth too small"; then
    echo "FAIL  spin $name: search depth too small"; return
  fi
  if { [ "$expect" = pass ] && [ "$errors" = 0 ]; } || { [ "$expect" = fail ] && [ "$errors" != 0 ]; }; then
    if [ "$expect" = pass ]; then
      echo "ok    spin $name: verified, $states states"
    else
      echo "ok    spin $name: caught as expected after $states states: ${what## }"
    fi
  else
    echo "FAIL  spin $name: expected $expect, got errors=$errors ${what}"
  fi
}

# The checks are independent single-threaded searches (each: spin, gcc, pan): they run as many at a
# time as there are cores, each into a file of its own, and are reported in the order queued (82 s
# one at a time on the 2-core CI machine).  A check whose first line is not "ok" failed.  At most as
# many as the available memory holds at pan's limit (-DMEMLIM=2048, MB) each.
parallel=$(nproc 2>/dev/null || echo 1)
avail_mb=$(awk '/^MemAvailable:/ {print int($2 / 1024)}' /proc/meminfo 2>/dev/null || true)
if [ -n "$avail_mb" ] && [ "$((avail_mb / 2048))" -lt "$parallel" ]; then parallel=$((avail_mb / 2048)); fi
[ "$parallel" -ge 1 ] || parallel=1
queued=()  # "MODEL NAME" of each check, in the order queued
spin_queue() {
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
  spin_check "$@" >"$work/$1.result" 2>&1 &
  queued+=("$2 $1")
}
# The results of every check queued on MODEL, under HEADER.
spin_report() {
  local header=$1 model=$2 entry name
  echo "$header"
  for entry in "${queued[@]}"; do
    [ "${entry%% *}" = "$model" ] || continue
    name=${entry#* }
    cat "$work/$name.result"
    if head -1 "$work/$name.result" | grep -q '^ok '; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  done
}

spin_queue wool-window          wool.pml pass
spin_queue wool-leapfrog        wool.pml pass -DLEAPFROG
spin_queue wool-window-ends     wool.pml pass -DBOUNDED=2
spin_queue wool-leapfrog-ends   wool.pml pass -DBOUNDED=2 -DLEAPFROG
spin_queue wool-no-bot-recheck  wool.pml fail -DNO_BOT_RECHECK
spin_queue wool-tag-beside      wool.pml fail -DTAG_BESIDE
spin_queue wool-no-restore      wool.pml fail -DNO_RESTORE -DBOUNDED=2
spin_queue sleep-fixed              sleep.pml pass
spin_queue sleep-cpp-today          sleep.pml fail -DSLEEPER_CPP_TODAY
spin_queue sleep-no-publish-fence   sleep.pml fail -DNO_PUBLISH_FENCE
spin_queue sleep-no-epoch           sleep.pml fail -DNO_EPOCH
spin_queue sleep-no-last-searcher-wake  sleep.pml fail -DNO_LAST_SEARCHER_WAKE
spin_queue sleep-searching-until-checked  sleep.pml fail -DSEARCHING_UNTIL_CHECKED
spin_queue sleep-no-pending-clear-at-sleep  sleep.pml fail -DNO_PENDING_CLEAR_AT_SLEEP
wait
spin_report "=== Spin: Wool's state word (verify/spin/wool.pml) ===" wool.pml
spin_report "=== Spin: sleep/wake (verify/spin/sleep.pml) ===" sleep.pml

echo "=== loom: deque, Wool steal/join, sleep/wake (verify/loom) ==="
loom_log="$work/loom.log"
(cd "$here/loom" && WEFT_LOOM_REPORT="$work/loom-report" cargo test -j2 --release --locked) >"$loom_log" 2>&1
loom_rc=$?
grep -E "^test .* \.\.\. (ok|FAILED|ignored)$" "$loom_log" | sed 's/^test /      loom /'
[ -f "$work/loom-report" ] && sort "$work/loom-report" | sed 's/^/      explored /'
loom_passed=$(sed -n 's/^test result: .* \([0-9]*\) passed.*/\1/p' "$loom_log" | awk '{s += $1} END {print s + 0}')
loom_failed=$(sed -n 's/^test result: .* \([0-9]*\) failed.*/\1/p' "$loom_log" | awk '{s += $1} END {print s + 0}')
if [ "$loom_rc" -ne 0 ] && [ "$loom_failed" -eq 0 ]; then
  echo "FAIL  loom: cargo test exited $loom_rc"; tail -20 "$loom_log"; loom_failed=1
elif [ "$loom_failed" -ne 0 ]; then
  grep -E "^test .*FAILED|panicked" "$loom_log" | head -20
fi
passed=$((passed + loom_passed))
failed=$((failed + loom_failed))

echo
echo "verify: ${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
