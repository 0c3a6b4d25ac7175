#include "ssf.hpp"

namespace {

bench::output run(const bench::args& a) {
    using namespace bench::ssf;
    const input_t in = input(a);
    result_t r(in.s.size());
    auto t = bench::measure(a, [&] {
        const std::size_t n = bench::opaque(in.s.size());
        for (std::size_t i = 0; i < n; ++i) position(in.s, r, i);
        return checksum(r);
    });
    return bench::result(t.time_s, t.result, oracle(in));
}

}  // namespace

BENCH_KERNEL("ssf", run);
