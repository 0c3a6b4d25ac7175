#!/usr/bin/env bash
# Instructions per never-promoted join on 1 worker, counted with callgrind (deterministic):
#   per_join = (ΔIr(weft) − ΔIr(baseline)) / Δjoins,  Δ = fib(N2) − fib(N1)
# Differencing two sizes cancels start-up and pool creation.  Baselines: the serial elision as the
# compiler makes it ("elision") and a version making exactly two calls per node ("twocalls").
# usage: tools/join_cost.sh BUILD_DIR [POLICY...]     (default policies: serial ws wool)
set -euo pipefail
build=${1:?build dir}; shift || true
policies=("$@"); [ ${#policies[@]} -gt 0 ] || policies=(serial ws wool)
bin=$build/tools/weft-overhead
n1=18; n2=22
fail() { echo "join_cost.sh: $*" >&2; exit 1; }
[ -x "$bin" ] || fail "no $bin (build it: ninja -C $build weft-overhead)"
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null || fail "needs valgrind and callgrind_annotate"
# Each configuration once, cheaply, before the callgrind runs: a bad policy fails here with the
# program's own message, not after minutes as a table of differences of nothing.
for what in "${policies[@]}"; do
  msg=$("$bin" once "$what" 2 2>&1 >/dev/null) || fail "'$bin once $what 2' failed: $msg"
done
joins() { python3 -c "
import functools
@functools.lru_cache(None)
def j(n): return 0 if n < 2 else 1 + j(n-1) + j(n-2)
print(j($1))"; }
# The program's instructions less those of the calling thread spinning in wait_for (pool::run's
# caller spins up to 4,000 pauses for the job before it sleeps: callgrind counts that thread too,
# and fib(N1) ends within the spin where fib(N2) does not, so the difference would not cancel it;
# the serial policy runs on the caller and has none).
# A run that fails, or a profile without totals, stops the script (exit 1) with the command and its
# message: `x=$(ir ...)` fails as the function does.
ir() {
  local out err rc=0; out=$(mktemp); err=$(mktemp)
  valgrind --tool=callgrind --log-file=/dev/null --callgrind-out-file="$out" "$bin" once "$1" "$2" >/dev/null 2>"$err" || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "join_cost.sh: 'valgrind --tool=callgrind $bin once $1 $2' exited $rc: $(head -c 2000 "$err")" >&2
    rm -f "$out" "$err"; return 1
  fi
  callgrind_annotate "$out" 2>/dev/null | awk '
    /PROGRAM TOTALS/ {gsub(",", "", $1); total = $1}
    /weft::detail::wait_for\(/ {gsub(",", "", $1); spin += $1}
    END {if (total == "") exit 1; print total - spin}' || { echo "join_cost.sh: no PROGRAM TOTALS in the profile of '$bin once $1 $2'" >&2; rm -f "$out" "$err"; return 1; }
  rm -f "$out" "$err"
}
dj=$(( $(joins $n2) - $(joins $n1) ))
declare -A delta
for what in elision twocalls "${policies[@]}"; do
  a=$(ir "$what" $n1); b=$(ir "$what" $n2)
  delta[$what]=$(( b - a ))
done
printf "callgrind: fib(%d) - fib(%d), %d joins\n" $n2 $n1 $dj
printf "%-10s %14s %14s %14s\n" policy "dIr" "Ir/join-elision" "Ir/join-2calls"
for p in "${policies[@]}"; do
  python3 -c "print('%-10s %14d %14.1f %14.1f' % ('$p', ${delta[$p]}, (${delta[$p]} - ${delta[elision]}) / $dj, (${delta[$p]} - ${delta[twocalls]}) / $dj))"
done
