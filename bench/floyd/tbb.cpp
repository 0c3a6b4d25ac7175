#include <tbb/parallel_for.h>

#include "floyd.hpp"

namespace {

bench::output run(const bench::args& a) {
    using namespace bench::floyd;
    const input_t in = input(a);
    std::vector<std::int32_t> d;
    auto t = bench::measure(
        a, [&] { d = in.d0; },
        [&] {
            const std::size_t n = in.n;
            for (std::size_t k = 0; k < n; ++k)  // default (auto) partitioner
                tbb::parallel_for(std::size_t{0}, n,
                                  [&](std::size_t i) { relax(d.data(), n, k, i); });
            return checksum(d);
        });
    return bench::result(t.time_s, t.result, oracle(in));
}

}  // namespace

BENCH_KERNEL("floyd", run);
