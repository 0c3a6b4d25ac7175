#include <omp.h>

#include "quickhull.hpp"

namespace {

namespace qh = bench::quickhull;
using qh::index;
using qh::pair_count;

// OpenMP tasks throughout: every join is a task for the first half, the second half inline, then
// taskwait.  The loops (extremes, farthest point) sit inside task recursion, where no worksharing
// loop can nest, so they are the same join tree as the others' parallel reduce: recursive halving
// into tasks down to single iterations.

template <class T, class Map, class Combine>
T reduce(index lo, index hi, const Map& map, const Combine& combine) {
    if (hi - lo == 1) return map(lo);
    const index mid = lo + (hi - lo) / 2;
    T l{}, r{};
#pragma omp task shared(l, map, combine) firstprivate(lo, mid)
    l = reduce<T>(lo, mid, map, combine);
    r = reduce<T>(mid, hi, map, combine);
#pragma omp taskwait
    return combine(l, r);
}

pair_count up(const qh::splitter& s, const index* P, pair_count* cnt, index lo, index hi) {
    if (hi - lo == 1) return s.side(P[lo]);
    const index mid = lo + (hi - lo) / 2;
    pair_count l{}, r{};
#pragma omp task shared(l, s) firstprivate(P, cnt, lo, mid)
    l = up(s, P, cnt, lo, mid);
    r = up(s, P, cnt, mid, hi);
#pragma omp taskwait
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
#pragma omp task shared(s) firstprivate(P, cnt, out, lo, mid, off)
    down(s, P, cnt, out, lo, mid, off);
    down(s, P, cnt, out, mid, hi, off + cnt[mid]);
#pragma omp taskwait
}

pair_count filter(const qh::splitter& s, const index* P, pair_count* cnt, index* out, index m) {
    const pair_count total = up(s, P, cnt, 0, m);
    down(s, P, cnt, out, 0, m, {0, total.first});
    return total;
}

qh::vertices hull(const qh::points& p, index* src, index* dst, pair_count* cnt, index m, index a,
                  index b) {
    if (m == 0) return {0, 0};
    const index f =
        reduce<qh::farthest>(
            0, m, [&](index i) { return qh::farthest_of(p, a, b, src[i]); }, qh::farther)
            .idx;
    const pair_count k = filter(qh::splitter{&p, a, f, b}, src, cnt, dst, m);
    qh::vertices l{}, r{};
#pragma omp task shared(l, p) firstprivate(src, dst, cnt, k, a, f)
    l = hull(p, dst, src, cnt, k.first, a, f);
    r = hull(p, dst + k.first, src + k.first, cnt + k.first, k.second, f, b);
#pragma omp taskwait
    return qh::vertices{1, f} + l + r;
}

std::uint64_t quickhull(const qh::points& p, qh::buffers& w) {
    const index n = w.n;
    index* src = w.src.get();
    const qh::extremes e = reduce<qh::extremes>(
        0, n, [&](index i) { return qh::extremes_of(src[i]); },
        [&](qh::extremes u, qh::extremes v) { return qh::combine(p, u, v); });
    if (e.left == e.right) return qh::checksum({1, e.left});
    index* dst = w.dst.get();
    pair_count* cnt = w.cnt.get();
    const pair_count k = filter(qh::splitter{&p, e.left, e.right, e.left}, src, cnt, dst, n);
    qh::vertices u{}, d{};
#pragma omp task shared(u, p, e) firstprivate(src, dst, cnt, k)
    u = hull(p, dst, src, cnt, k.first, e.left, e.right);
    d = hull(p, dst + k.first, src + k.first, cnt + k.first, k.second, e.right, e.left);
#pragma omp taskwait
    return qh::checksum(qh::vertices{2, std::uint64_t{e.left} + e.right} + u + d);
}

bench::output run(const bench::args& a) {
    const qh::points p = qh::input(a);
    qh::buffers w(p.size());
    auto t = bench::measure(a, [&] { w.reset(); }, [&] {
        std::uint64_t c = 0;
#pragma omp parallel
#pragma omp single
        c = quickhull(p, w);
        return c;
    });
    return bench::result(t.time_s, t.result, qh::oracle(p));
}

}  // namespace

BENCH_KERNEL("quickhull", run);
