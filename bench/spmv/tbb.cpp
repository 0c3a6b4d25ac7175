#include <functional>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include "spmv.hpp"

namespace {

bench::output run(const bench::args& a) {
    using namespace bench::spmv;
    const input_t in = input(a);
    std::vector<double> y(in.rows);
    auto t = bench::measure(a, [&] {
        return repeat(in, y, [&](double* yp) {
            // default (auto) partitioner, for the rows and for each row's nonzeros
            tbb::parallel_for(std::size_t{0}, in.rows, [&](std::size_t r) {
                yp[r] = tbb::parallel_reduce(
                    tbb::blocked_range<std::size_t>(in.row_ptr[r], in.row_ptr[r + 1]), 0.0,
                    [&](const tbb::blocked_range<std::size_t>& range, double s) {
                        for (std::size_t k = range.begin(); k != range.end(); ++k) s += term(in, k);
                        return s;
                    },
                    std::plus<double>());
            });
        });
    });
    return bench::result(t.time_s, t.result, oracle(in));
}

}  // namespace

BENCH_KERNEL("spmv", run);
