#include "spmv.hpp"

namespace {

bench::output run(const bench::args& a) {
    using namespace bench::spmv;
    const input_t in = input(a);
    std::vector<double> y(in.rows);
    auto t = bench::measure(a, [&] {
        return repeat(in, y, [&](double* yp) {
            const std::size_t rows = bench::opaque(in.rows);
            for (std::size_t r = 0; r < rows; ++r) yp[r] = row_serial(in, r);
        });
    });
    return bench::result(t.time_s, t.result, oracle(in));
}

}  // namespace

BENCH_KERNEL("spmv", run);
