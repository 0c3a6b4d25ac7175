#include <omp.h>

#include "uts.hpp"

namespace {

// OpenMP tasks, as UTS's own OpenMP version and BOTS do: one task per child, each adding its
// subtree's count to the parent's sum atomically; taskwait before the parent returns.
template <class Tree>
std::uint64_t count(const Tree& t, std::uint64_t s, std::uint32_t depth) {
    const std::uint64_t n = t.children(s, depth);
    std::uint64_t sum = 1;
    for (std::uint64_t c = 0; c < n; ++c) {
#pragma omp task shared(t, sum) firstprivate(s, depth, c)
        {
            const std::uint64_t sub = count(t, bench::hash2(s, c), depth + 1);
#pragma omp atomic
            sum += sub;
        }
    }
#pragma omp taskwait
    return sum;
}

template <class Tree>
bench::output run(const bench::args& a, const Tree& t) {
    auto r = bench::measure(a, [&] {
        std::uint64_t nodes = 0;
#pragma omp parallel
#pragma omp single
        nodes = count(t, bench::uts::root_state(), 0);
        return nodes;
    });
    return bench::result(r.time_s, r.result, bench::uts::oracle(t));
}

bench::output run_geo(const bench::args& a) { return run(a, bench::uts::geo_input(a)); }
bench::output run_bin(const bench::args& a) { return run(a, bench::uts::bin_input(a)); }

}  // namespace

BENCH_KERNEL("uts-geo", run_geo);
BENCH_KERNEL("uts-bin", run_bin);
