#include <tbb/parallel_for.h>

#include "mm.hpp"

namespace {

bench::output run(const bench::args& a) {
    using namespace bench::mm;
    const input_t in = input(a);
    std::vector<double> c(in.n * in.n);
    auto t = bench::measure(a, [&] {
        return repeat(in, c, [&](double* cp) {
            // default (auto) partitioner
            tbb::parallel_for(std::size_t{0}, in.n, [&](std::size_t i) { row(in, cp, i); });
        });
    });
    return bench::result(t.time_s, t.result, oracle(in));
}

}  // namespace

BENCH_KERNEL("mm", run);
