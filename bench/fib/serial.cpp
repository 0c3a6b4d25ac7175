#include "fib.hpp"

namespace {

bench::output run(const bench::args& a) {
    const unsigned n = bench::fib::input(a);
    auto t = bench::measure(a, [&] { return bench::fib::serial(bench::opaque(n)); });
    return bench::result(t.time_s, t.result, bench::fib::oracle(n));
}

}  // namespace

BENCH_KERNEL("fib", run);
