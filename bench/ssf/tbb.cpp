#include <tbb/parallel_for.h>

#include "ssf.hpp"

namespace {

bench::output run(const bench::args& a) {
    using namespace bench::ssf;
    const input_t in = input(a);
    result_t r(in.s.size());
    auto t = bench::measure(a, [&] {
        // default (auto) partitioner
        tbb::parallel_for(std::size_t{0}, in.s.size(), [&](std::size_t i) { position(in.s, r, i); });
        return checksum(r);
    });
    return bench::result(t.time_s, t.result, oracle(in));
}

}  // namespace

BENCH_KERNEL("ssf", run);
