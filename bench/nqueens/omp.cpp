#include <omp.h>

#include "nqueens.hpp"

namespace {

using namespace bench::nqueens;

// The parallel reduce over the columns as OpenMP tasks: a taskloop (the implementation picks
// the number of tasks, like TBB's auto partitioner; no grainsize given), each iteration
// writing its own slot, summed after the taskloop's implicit taskgroup.
std::uint64_t solve(const board& b, int d, int n) {
    if (d == n) return 1;
    std::uint64_t counts[max_n];
    const board* bp = &b;
    // An unsigned loop variable: clang 14 warns about sign comparison in its taskloop code.
    const unsigned long columns = static_cast<unsigned long>(n);
#pragma omp taskloop shared(counts) firstprivate(bp, d, n)
    for (unsigned long c = 0; c < columns; ++c) counts[c] = column(*bp, d, static_cast<int>(c), n, solve);
    std::uint64_t s = 0;
    for (int c = 0; c < n; ++c) s += counts[c];
    return s;
}

bench::output run(const bench::args& a) {
    const int n = input(a);
    auto t = bench::measure(a, [&] {
        std::uint64_t r = 0;
#pragma omp parallel
#pragma omp single
        r = solve(board{}, 0, n);
        return r;
    });
    return bench::result(t.time_s, t.result, oracle(n));
}

}  // namespace

BENCH_KERNEL("nqueens", run);
