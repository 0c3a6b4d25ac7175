#include <functional>

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include "nqueens.hpp"

namespace {

using namespace bench::nqueens;

std::uint64_t solve(const board& b, int d, int n) {
    if (d == n) return 1;
    return tbb::parallel_reduce(
        tbb::blocked_range<int>(0, n), std::uint64_t{0},
        [&](const tbb::blocked_range<int>& r, std::uint64_t s) {
            for (int c = r.begin(); c != r.end(); ++c) s += column(b, d, c, n, solve);
            return s;
        },
        std::plus<std::uint64_t>());  // default (auto) partitioner
}

bench::output run(const bench::args& a) {
    const int n = input(a);
    auto t = bench::measure(a, [&] { return solve(board{}, 0, n); });
    return bench::result(t.time_s, t.result, oracle(n));
}

}  // namespace

BENCH_KERNEL("nqueens", run);
