#include <omp.h>

#include "fib.hpp"

namespace {

// The join: the first call is a task, the second runs inline, then taskwait.
std::uint64_t fib(unsigned n) {
    if (n < 2) return n;
    std::uint64_t x = 0, y = 0;
#pragma omp task shared(x) firstprivate(n)
    x = fib(n - 1);
    y = fib(n - 2);
#pragma omp taskwait
    return x + y;
}

bench::output run(const bench::args& a) {
    const unsigned n = bench::fib::input(a);
    auto t = bench::measure(a, [&] {
        std::uint64_t r = 0;
#pragma omp parallel
#pragma omp single
        r = fib(n);
        return r;
    });
    return bench::result(t.time_s, t.result, bench::fib::oracle(n));
}

}  // namespace

BENCH_KERNEL("fib", run);
