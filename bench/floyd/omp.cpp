#include <omp.h>

#include "floyd.hpp"

namespace {

bench::output run(const bench::args& a) {
    using namespace bench::floyd;
    const input_t in = input(a);
    std::vector<std::int32_t> d;
    auto t = bench::measure(
        a, [&] { d = in.d0; },
        [&] {
            const long n = static_cast<long>(in.n);
            std::int32_t* dp = d.data();
            // One parallel region; for each k an omp for over i (default schedule) whose
            // implicit barrier ends step k.
#pragma omp parallel firstprivate(dp, n)
            for (long k = 0; k < n; ++k) {
#pragma omp for
                for (long i = 0; i < n; ++i)
                    relax(dp, static_cast<std::size_t>(n), static_cast<std::size_t>(k),
                          static_cast<std::size_t>(i));
            }
            return checksum(d);
        });
    return bench::result(t.time_s, t.result, oracle(in));
}

}  // namespace

BENCH_KERNEL("floyd", run);
