#include <omp.h>

#include "ssf.hpp"

namespace {

bench::output run(const bench::args& a) {
    using namespace bench::ssf;
    const input_t in = input(a);
    result_t r(in.s.size());
    auto t = bench::measure(a, [&] {
        const long n = static_cast<long>(in.s.size());
        // omp for with the default schedule
#pragma omp parallel for
        for (long i = 0; i < n; ++i) position(in.s, r, static_cast<std::size_t>(i));
        return checksum(r);
    });
    return bench::result(t.time_s, t.result, oracle(in));
}

}  // namespace

BENCH_KERNEL("ssf", run);
