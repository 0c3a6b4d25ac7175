#include "nqueens.hpp"

namespace {

bench::output run(const bench::args& a) {
    using namespace bench::nqueens;
    const int n = input(a);
    auto t = bench::measure(a, [&] { return serial(board{}, 0, bench::opaque(n)); });
    return bench::result(t.time_s, t.result, oracle(n));
}

}  // namespace

BENCH_KERNEL("nqueens", run);
