#include <functional>

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include "uts.hpp"

namespace {

// The children of every node are a tbb::parallel_reduce (default auto partitioner and grain).
template <class Tree>
std::uint64_t count(const Tree& t, std::uint64_t s, std::uint32_t depth) {
    const std::uint64_t n = t.children(s, depth);
    return 1 + tbb::parallel_reduce(
                   tbb::blocked_range<std::uint64_t>(0, n), std::uint64_t{0},
                   [&](const tbb::blocked_range<std::uint64_t>& r, std::uint64_t acc) {
                       for (std::uint64_t c = r.begin(); c != r.end(); ++c)
                           acc += count(t, bench::hash2(s, c), depth + 1);
                       return acc;
                   },
                   std::plus<std::uint64_t>{});
}

template <class Tree>
bench::output run(const bench::args& a, const Tree& t) {
    auto r = bench::measure(a, [&] { return count(t, bench::uts::root_state(), 0); });
    return bench::result(r.time_s, r.result, bench::uts::oracle(t));
}

bench::output run_geo(const bench::args& a) { return run(a, bench::uts::geo_input(a)); }
bench::output run_bin(const bench::args& a) { return run(a, bench::uts::bin_input(a)); }

}  // namespace

BENCH_KERNEL("uts-geo", run_geo);
BENCH_KERNEL("uts-bin", run_bin);
