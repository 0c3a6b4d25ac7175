#include "mergesort.hpp"

namespace {

namespace ms = bench::mergesort;

bench::output run(const bench::args& a) {
    const std::vector<ms::key> keys = ms::input(a);
    ms::arrays s(keys.size());
    auto t = bench::measure(a, [&] { s.load(keys); }, [&] {
        ms::sort(bench::opaque(s.a.get()), s.b.get(), s.n, false);
        return 0;
    });
    return ms::finish(t.time_s, ms::check(s.a.get(), s.n), keys);
}

}  // namespace

BENCH_KERNEL("mergesort", run);
