#include "mm.hpp"

namespace {

bench::output run(const bench::args& a) {
    using namespace bench::mm;
    const input_t in = input(a);
    std::vector<double> c(in.n * in.n);
    auto t = bench::measure(a, [&] {
        return repeat(in, c, [&](double* cp) {
            for (std::size_t i = 0; i < in.n; ++i) row(in, cp, i);
        });
    });
    return bench::result(t.time_s, t.result, oracle(in));
}

}  // namespace

BENCH_KERNEL("mm", run);
