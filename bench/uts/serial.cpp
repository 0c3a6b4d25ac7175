#include "uts.hpp"

namespace {

template <class Tree>
bench::output run(const bench::args& a, const Tree& t) {
    auto r = bench::measure(a, [&] {
        return bench::uts::serial(t, bench::opaque(bench::uts::root_state()), 0);
    });
    return bench::result(r.time_s, r.result, bench::uts::oracle(t));
}

bench::output run_geo(const bench::args& a) { return run(a, bench::uts::geo_input(a)); }
bench::output run_bin(const bench::args& a) { return run(a, bench::uts::bin_input(a)); }

}  // namespace

BENCH_KERNEL("uts-geo", run_geo);
BENCH_KERNEL("uts-bin", run_bin);
