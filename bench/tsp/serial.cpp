#include "tsp.hpp"

namespace {

bench::output run(const bench::args& a) {
    const bench::tsp::problem p = bench::tsp::input(a);
    auto t = bench::measure(a, [&] {
        bench::tsp::bound b(p.greedy);
        bench::tsp::serial(p, b, 0, bench::opaque(1u), 1, 0);
        return b.get();
    });
    return bench::result(t.time_s, t.result, bench::tsp::oracle(p));
}

}  // namespace

BENCH_KERNEL("tsp", run);
