#include "../common/system_weft.hpp"
#include "fib.hpp"

namespace {

std::uint64_t fib(unsigned n) {
    if (n < 2) return n;
    auto [x, y] = weft::join([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
    return x + y;
}

bench::output run(const bench::args& a) {
    const unsigned n = bench::fib::input(a);
    auto t = bench::measure(a, [&] { return bench::weft_pool().run([&] { return fib(n); }); });
    return bench::result(t.time_s, t.result, bench::fib::oracle(n));
}

}  // namespace

BENCH_KERNEL("fib", run);
