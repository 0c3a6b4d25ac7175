#include <omp.h>

#include "mm.hpp"

namespace {

bench::output run(const bench::args& a) {
    using namespace bench::mm;
    const input_t in = input(a);
    std::vector<double> c(in.n * in.n);
    auto t = bench::measure(a, [&] {
        return repeat(in, c, [&](double* cp) {
            const long n = static_cast<long>(in.n);
            // omp for with the default schedule
#pragma omp parallel for
            for (long i = 0; i < n; ++i) row(in, cp, static_cast<std::size_t>(i));
        });
    });
    return bench::result(t.time_s, t.result, oracle(in));
}

}  // namespace

BENCH_KERNEL("mm", run);
