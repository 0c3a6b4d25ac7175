#include <omp.h>

#include "tsp.hpp"

namespace {

using bench::tsp::bound;
using bench::tsp::problem;

// OpenMP tasks (as BOTS does for branch and bound): one task per extension of a partial tour,
// taskwait before returning.
void search(const problem& p, bound& b, std::uint32_t last, std::uint32_t visited, std::uint32_t k,
            std::int64_t cost) {
    if (bench::tsp::settle(p, b, last, k, cost)) return;
    for (std::uint32_t c = 1; c < p.n; ++c) {
        if (visited >> c & 1u) continue;
#pragma omp task shared(p, b) firstprivate(c, last, visited, k, cost)
        search(p, b, c, visited | 1u << c, k + 1, cost + p.dist(last, c));
    }
#pragma omp taskwait
}

bench::output run(const bench::args& a) {
    const problem p = bench::tsp::input(a);
    auto t = bench::measure(a, [&] {
        bound b(p.greedy);
#pragma omp parallel
#pragma omp single
        search(p, b, 0, 1u, 1, 0);
        return b.get();
    });
    return bench::result(t.time_s, t.result, bench::tsp::oracle(p));
}

}  // namespace

BENCH_KERNEL("tsp", run);
