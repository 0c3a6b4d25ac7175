#include <functional>

#include "../common/system_weft.hpp"
#include "uts.hpp"

namespace {

// Declarative: the children of every node are a weft::parallel_reduce, no grain, no cutoff.
template <class Tree>
std::uint64_t count(const Tree& t, std::uint64_t s, std::uint32_t depth) {
    const std::uint64_t n = t.children(s, depth);
    return 1 + weft::parallel_reduce(
                   std::uint64_t{0}, n, std::uint64_t{0},
                   [&](std::uint64_t c) { return count(t, bench::hash2(s, c), depth + 1); },
                   std::plus<std::uint64_t>{});
}

template <class Tree>
bench::output run(const bench::args& a, const Tree& t) {
    auto r = bench::measure(a, [&] {
        return bench::weft_pool().run([&] { return count(t, bench::uts::root_state(), 0); });
    });
    return bench::result(r.time_s, r.result, bench::uts::oracle(t));
}

bench::output run_geo(const bench::args& a) { return run(a, bench::uts::geo_input(a)); }
bench::output run_bin(const bench::args& a) { return run(a, bench::uts::bin_input(a)); }

}  // namespace

BENCH_KERNEL("uts-geo", run_geo);
BENCH_KERNEL("uts-bin", run_bin);
