#include "../common/system_weft.hpp"
#include "tsp.hpp"

namespace {

using bench::tsp::bound;
using bench::tsp::problem;

// Declarative: every extension of a partial tour is an iteration of a weft::parallel_for.
void search(const problem& p, bound& b, std::uint32_t last, std::uint32_t visited, std::uint32_t k,
            std::int64_t cost) {
    if (bench::tsp::settle(p, b, last, k, cost)) return;
    weft::parallel_for(std::uint32_t{1}, p.n, [&](std::uint32_t c) {
        if (!(visited >> c & 1u)) search(p, b, c, visited | 1u << c, k + 1, cost + p.dist(last, c));
    });
}

bench::output run(const bench::args& a) {
    const problem p = bench::tsp::input(a);
    auto t = bench::measure(a, [&] {
        bound b(p.greedy);
        bench::weft_pool().run([&] { search(p, b, 0, 1u, 1, 0); });
        return b.get();
    });
    return bench::result(t.time_s, t.result, bench::tsp::oracle(p));
}

}  // namespace

BENCH_KERNEL("tsp", run);
