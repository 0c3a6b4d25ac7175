#include <tbb/blocked_range.h>
#include <tbb/parallel_invoke.h>
#include <tbb/parallel_reduce.h>

#include "quickhull.hpp"

namespace {

namespace qh = bench::quickhull;
using qh::index;
using qh::pair_count;

// The sub-hulls and both halves of every scan step are a tbb::parallel_invoke; the extremes and
// the farthest point are a tbb::parallel_reduce (default auto partitioner and grain).

pair_count up(const qh::splitter& s, const index* P, pair_count* cnt, index lo, index hi) {
    if (hi - lo == 1) return s.side(P[lo]);
    const index mid = lo + (hi - lo) / 2;
    pair_count l, r;
    tbb::parallel_invoke([&] { l = up(s, P, cnt, lo, mid); }, [&] { r = up(s, P, cnt, mid, hi); });
    cnt[mid] = l;
    return l + r;
}

void down(const qh::splitter& s, const index* P, const pair_count* cnt, index* out, index lo,
          index hi, pair_count off) {
    if (hi - lo == 1) {
        const pair_count k = s.side(P[lo]);
        if (k.first) out[off.first] = P[lo];
        if (k.second) out[off.second] = P[lo];
        return;
    }
    const index mid = lo + (hi - lo) / 2;
    tbb::parallel_invoke([&] { down(s, P, cnt, out, lo, mid, off); },
                         [&] { down(s, P, cnt, out, mid, hi, off + cnt[mid]); });
}

pair_count filter(const qh::splitter& s, const index* P, pair_count* cnt, index* out, index m) {
    const pair_count total = up(s, P, cnt, 0, m);
    down(s, P, cnt, out, 0, m, {0, total.first});
    return total;
}

qh::vertices hull(const qh::points& p, index* src, index* dst, pair_count* cnt, index m, index a,
                  index b) {
    if (m == 0) return {0, 0};
    const index f = tbb::parallel_reduce(
                        tbb::blocked_range<index>(0, m), qh::no_point,
                        [&](const tbb::blocked_range<index>& r, qh::farthest acc) {
                            for (index i = r.begin(); i != r.end(); ++i)
                                acc = qh::farther(acc, qh::farthest_of(p, a, b, src[i]));
                            return acc;
                        },
                        qh::farther)
                        .idx;
    const pair_count k = filter(qh::splitter{&p, a, f, b}, src, cnt, dst, m);
    qh::vertices l, r;
    tbb::parallel_invoke(
        [&] { l = hull(p, dst, src, cnt, k.first, a, f); },
        [&] { r = hull(p, dst + k.first, src + k.first, cnt + k.first, k.second, f, b); });
    return qh::vertices{1, f} + l + r;
}

std::uint64_t quickhull(const qh::points& p, qh::buffers& w) {
    const index n = w.n;
    index* src = w.src.get();
    // The identity is point src[0] itself: selecting the extremes is idempotent.
    const qh::extremes e = tbb::parallel_reduce(
        tbb::blocked_range<index>(0, n), qh::extremes_of(src[0]),
        [&](const tbb::blocked_range<index>& r, qh::extremes acc) {
            for (index i = r.begin(); i != r.end(); ++i)
                acc = qh::combine(p, acc, qh::extremes_of(src[i]));
            return acc;
        },
        [&](qh::extremes u, qh::extremes v) { return qh::combine(p, u, v); });
    if (e.left == e.right) return qh::checksum({1, e.left});
    index* dst = w.dst.get();
    pair_count* cnt = w.cnt.get();
    const pair_count k = filter(qh::splitter{&p, e.left, e.right, e.left}, src, cnt, dst, n);
    qh::vertices u, d;
    tbb::parallel_invoke(
        [&] { u = hull(p, dst, src, cnt, k.first, e.left, e.right); },
        [&] {
            d = hull(p, dst + k.first, src + k.first, cnt + k.first, k.second, e.right, e.left);
        });
    return qh::checksum(qh::vertices{2, std::uint64_t{e.left} + e.right} + u + d);
}

bench::output run(const bench::args& a) {
    const qh::points p = qh::input(a);
    qh::buffers w(p.size());
    auto t = bench::measure(a, [&] { w.reset(); }, [&] { return quickhull(p, w); });
    return bench::result(t.time_s, t.result, qh::oracle(p));
}

}  // namespace

BENCH_KERNEL("quickhull", run);
