#include <tbb/parallel_invoke.h>

#include "fib.hpp"

namespace {

std::uint64_t fib(unsigned n) {
    if (n < 2) return n;
    std::uint64_t x = 0, y = 0;
    tbb::parallel_invoke([&] { x = fib(n - 1); }, [&] { y = fib(n - 2); });
    return x + y;
}

bench::output run(const bench::args& a) {
    const unsigned n = bench::fib::input(a);
    auto t = bench::measure(a, [&] { return fib(n); });
    return bench::result(t.time_s, t.result, bench::fib::oracle(n));
}

}  // namespace

BENCH_KERNEL("fib", run);
