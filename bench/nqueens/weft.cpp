#include "../common/system_weft.hpp"
#include "nqueens.hpp"

namespace {

using namespace bench::nqueens;

std::uint64_t solve(const board& b, int d, int n) {
    if (d == n) return 1;
    return weft::parallel_reduce(
        0, n, std::uint64_t{0},
        [&](int c) -> std::uint64_t { return column(b, d, c, n, solve); },
        [](std::uint64_t x, std::uint64_t y) -> std::uint64_t { return x + y; });
}

bench::output run(const bench::args& a) {
    const int n = input(a);
    auto t = bench::measure(a, [&] { return bench::weft_pool().run([&] { return solve(board{}, 0, n); }); });
    return bench::result(t.time_s, t.result, oracle(n));
}

}  // namespace

BENCH_KERNEL("nqueens", run);
