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
joins() { python3 -c "
import functools
@functools.lru_cache(None)
def j(n): return 0 if n < 2 else 1 + j(n-1) + j(n-2)
print(j($1))"; }
# The program's instructions less those of the calling thread spinning in wait_for (pool::run's
# caller spins up to 4,000 pauses for the job before it sleeps: callgrind counts that thread too,
# and fib(N1) ends within the spin where fib(N2) does not, so the difference would not cancel it;
# the serial policy runs on the caller and has none).
ir() {
  local out; out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" once "$1" "$2" >/dev/null 2>&1
  callgrind_annotate "$out" 2>/dev/null | awk '
    /PROGRAM TOTALS/ {gsub(",", "", $1); total = $1}
    /weft::detail::wait_for\(/ {gsub(",", "", $1); spin += $1}
    END {print total - spin}'
  rm -f "$out"
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
