#include "../common/system_weft.hpp"
#include "spmv.hpp"

namespace {

bench::output run(const bench::args& a) {
    using namespace bench::spmv;
    const input_t in = input(a);
    std::vector<double> y(in.rows);
    auto t = bench::measure(a, [&] {
        return bench::weft_pool().run([&] {
            return repeat(in, y, [&](double* yp) {
                weft::parallel_for(std::size_t{0}, in.rows, [&](std::size_t r) {
                    yp[r] = weft::parallel_reduce(
                        in.row_ptr[r], in.row_ptr[r + 1], 0.0,
                        [&](std::size_t k) -> double { return term(in, k); },
                        [](double x, double y) -> double { return x + y; });
                });
            });
        });
    });
    return bench::result(t.time_s, t.result, oracle(in));
}

}  // namespace

BENCH_KERNEL("spmv", run);
