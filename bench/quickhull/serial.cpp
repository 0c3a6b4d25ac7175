#include "quickhull.hpp"

namespace {

namespace qh = bench::quickhull;

bench::output run(const bench::args& a) {
    const qh::points p = qh::input(a);
    qh::buffers w(p.size());
    auto t = bench::measure(a, [&] { w.reset(); }, [&] { return qh::serial(p, w); });
    return bench::result(t.time_s, t.result, qh::oracle(p));
}

}  // namespace

BENCH_KERNEL("quickhull", run);
