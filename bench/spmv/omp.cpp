#include <omp.h>

#include "spmv.hpp"

namespace {

bench::output run(const bench::args& a) {
    using namespace bench::spmv;
    const input_t in = input(a);
    std::vector<double> y(in.rows);
    auto t = bench::measure(a, [&] {
        return repeat(in, y, [&](double* yp) {
            const long rows = static_cast<long>(in.rows);
            // omp for over the rows (default schedule).  The nested reduce over a row's
            // nonzeros runs serially inside each iteration: OpenMP has no cheap nested
            // parallel loop inside an omp for (a nested parallel region or tasks per
            // nonzero would cost far more than the row), so this is how spmv is written
            // with OpenMP.
#pragma omp parallel for
            for (long r = 0; r < rows; ++r) yp[r] = row_serial(in, static_cast<std::size_t>(r));
        });
    });
    return bench::result(t.time_s, t.result, oracle(in));
}

}  // namespace

BENCH_KERNEL("spmv", run);
