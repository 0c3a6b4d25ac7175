// bench/quickhull: parallel quickhull (HB §5, after PBBS's convex hull), declarative: the two
// sub-hulls are a join, the farthest-point search is a parallel reduce, and the filter of a point
// set is a parallel pack built from joins down to single points (no grain, no cutoff).
//
// Input (KERNELS.md): n = 1000 / 1000000 / 10000000 points, x_i = below(g, 2^20) then
// y_i = below(g, 2^20) for i = 0, 1, ... (seed 29).
//
// Geometry: cross(a, b, p) = (x_b - x_a)(y_p - y_a) - (y_b - y_a)(x_p - x_a) (int64); p is
// "outside a->b" iff cross(a, b, p) > 0 (strictly left).  Collinear points, and duplicates of a
// vertex, are never outside, so they are not hull vertices.
//
// Algorithm (every system):
//   1. L = the point with the smallest (x, y, index), R = the one with the largest (x, y) and, on
//      ties, the smallest index (one parallel reduce over all points).
//   2. filter all points into U = outside L->R and D = outside R->L;
//      join(hull(U, L, R), hull(D, R, L)).
//   hull(P, a, b) (P: the points outside a->b): if P is empty, no vertex; else
//      f = the point of P with the largest cross(a, b, .); on ties the smallest
//      dot(b - a, . - a) (the tied points lie on a line parallel to a->b: the end nearest to a is
//      a vertex, the middle ones are not), then the smallest index (a parallel reduce); filter P
//      into P1 = outside a->f and P2 = outside f->b (disjoint);
//      join(hull(P1, a, f), hull(P2, f, b)); f is a vertex.
//   filter(P -> out): a stable pack of P (an index array) into out = [P1 | P2] by a two-pass tree
//      scan over [0, |P|): up-sweep: a join recursion halving [lo, hi) (mid = lo + (hi - lo) / 2)
//      down to single points, each internal node storing the counts of its left half at
//      cnt[mid]; down-sweep: the same recursion passing the output offsets down (right half:
//      offsets + cnt[mid]), each single point written to its slot.
//   P, P1 and P2 are index arrays in two ping-pong buffers: P in src[0, m) is packed into
//   dst[0, m1 + m2), and the sub-hulls work on dst[0, m1) and dst[m1, m1 + m2) with src as their
//   output, so no allocation happens during a run.  Timed: steps 1-2, given the buffers (src filled
//   with 0, 1, ..., n-1: the input point set as indices) allocated before the clock starts.
//
// Checksum: (number of hull vertices) * 2^32 + (sum of their indices mod 2^32).  The oracle is
// Andrew's monotone chain over the points sorted by (x, y, index), duplicates dropped (the
// smallest index kept), collinear points dropped, after Akl and Toussaint's filter.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "../common/bench.hpp"

namespace bench::quickhull {

using index = std::uint32_t;

struct points {
    std::vector<std::int64_t> x, y;
    index size() const { return static_cast<index>(x.size()); }

    std::int64_t cross(index a, index b, index p) const {
        return (x[b] - x[a]) * (y[p] - y[a]) - (y[b] - y[a]) * (x[p] - x[a]);
    }
    bool outside(index a, index b, index p) const { return cross(a, b, p) > 0; }
};

inline points generate(index n) {
    points pts;
    pts.x.resize(n);
    pts.y.resize(n);
    std::uint64_t g = 29;
    for (index i = 0; i < n; ++i) {
        pts.x[i] = static_cast<std::int64_t>(below(g, 1u << 20));
        pts.y[i] = static_cast<std::int64_t>(below(g, 1u << 20));
    }
    return pts;
}

inline points input(const args& a) {
    require_default_variant(a);
    return generate(pick<index>(a, 1000, 1000000, 10000000));
}

// Step 1's reduction value: the leftmost and rightmost points so far.
struct extremes {
    index left, right;
};

inline extremes extremes_of(index i) { return {i, i}; }

inline extremes combine(const points& p, extremes u, extremes v) {
    auto less_left = [&](index i, index j) {  // (x, y, index) smaller
        if (p.x[i] != p.x[j]) return p.x[i] < p.x[j];
        if (p.y[i] != p.y[j]) return p.y[i] < p.y[j];
        return i < j;
    };
    auto less_right = [&](index i, index j) {  // (x, y) larger, then index smaller
        if (p.x[i] != p.x[j]) return p.x[i] > p.x[j];
        if (p.y[i] != p.y[j]) return p.y[i] > p.y[j];
        return i < j;
    };
    return {less_left(u.left, v.left) ? u.left : v.left,
            less_right(u.right, v.right) ? u.right : v.right};
}

// The farthest-point reduction value of point idx for the edge a->b: dist = cross(a, b, idx)
// and proj = dot(b - a, idx - a).  The farthest point has the largest dist; among ties (points
// on one line parallel to a->b) the smallest proj, the end of that segment nearest to a, which is
// a hull vertex (the middle ones are collinear); among duplicates the smallest index.  The
// identity has dist -1.
struct farthest {
    std::int64_t dist, proj;
    index idx;
};

inline constexpr farthest no_point{-1, 0, 0xFFFFFFFFu};

inline farthest farthest_of(const points& p, index a, index b, index i) {
    const std::int64_t proj =
        (p.x[b] - p.x[a]) * (p.x[i] - p.x[a]) + (p.y[b] - p.y[a]) * (p.y[i] - p.y[a]);
    return {p.cross(a, b, i), proj, i};
}

inline farthest farther(farthest u, farthest v) {
    if (u.dist != v.dist) return u.dist > v.dist ? u : v;
    if (u.proj != v.proj) return u.proj < v.proj ? u : v;
    return u.idx < v.idx ? u : v;
}

// The two outputs of a filter: counts (and, in the down-sweep, offsets) of P1 and P2.
struct pair_count {
    index first, second;
};

inline pair_count operator+(pair_count u, pair_count v) {
    return {u.first + v.first, u.second + v.second};
}

// Which side of the split a point of P goes to: 1 (outside a->f), 2 (outside f->b) or 0 (none).
struct splitter {
    const points* p;
    index a, f, b;
    pair_count side(index i) const {
        if (p->outside(a, f, i)) return {1, 0};
        if (p->outside(f, b, i)) return {0, 1};
        return {0, 0};
    }
};

// A hull result: the number of vertices found and the sum of their indices.
struct vertices {
    std::uint64_t count, sum;
};

inline vertices operator+(vertices u, vertices v) { return {u.count + v.count, u.sum + v.sum}; }

inline std::uint64_t checksum(vertices v) { return (v.count << 32) + (v.sum & 0xFFFFFFFFu); }

// The buffers of one run.
struct buffers {
    explicit buffers(index n)
        : src(new index[n]), dst(new index[n]), cnt(new pair_count[n]), n(n) {}
    void reset() { std::iota(src.get(), src.get() + n, index{0}); }
    std::unique_ptr<index[]> src, dst;
    std::unique_ptr<pair_count[]> cnt;
    index n;
};

// ---- the algorithm (every system) ----

// One filter's sweeps: what every call of up and down reads (and up writes, cnt), passed as one
// pointer so that a branch captures it and the range by value — 24 bytes or less, which weft copies
// into its frame instead of pointing at seven variables kept in memory (README "Cheap joins").
struct sweep {
    splitter s;
    const index* P;
    pair_count* cnt;
    index* out;
};

// The sweeps cannot throw, and their first branches say so (`noexcept`, README "Cheap joins"):
// a join whose first branch may throw keeps an exception cleanup around that call, which every
// join of the recursion pays (weft: 6 % of the instructions, 6-7 % of the time at full size;
// docs/results/loops.md, "Stop 34").  The other systems compile the same source.
template <class S>
pair_count up(const sweep* w, index lo, index hi) {
    if (hi - lo == 1) return w->s.side(w->P[lo]);
    const index mid = lo + (hi - lo) / 2;
    auto [l, r] = S::join([w, lo, mid]() noexcept { return up<S>(w, lo, mid); },
                          [w, mid, hi] { return up<S>(w, mid, hi); });
    w->cnt[mid] = l;
    return l + r;
}

template <class S>
void down(const sweep* w, index lo, index hi, pair_count off) {
    if (hi - lo == 1) {
        const pair_count k = w->s.side(w->P[lo]);
        if (k.first) w->out[off.first] = w->P[lo];
        if (k.second) w->out[off.second] = w->P[lo];
        return;
    }
    const index mid = lo + (hi - lo) / 2;
    S::join([w, lo, mid, off]() noexcept { down<S>(w, lo, mid, off); },
            [w, mid, hi, off2 = off + w->cnt[mid]] { down<S>(w, mid, hi, off2); });
}

// Packs P[0, m) into out = [P1 | P2]; returns (|P1|, |P2|).
template <class S>
pair_count filter(const splitter& s, const index* P, pair_count* cnt, index* out, index m) {
    const sweep w{s, P, cnt, out};
    const pair_count total = up<S>(&w, 0, m);
    down<S>(&w, 0, m, {0, total.first});
    return total;
}

// The two sub-hulls of the points P1 in dst[0, k.first) and P2 in dst[k.first, m1 + m2), src
// their output, are a join.
template <class S>
vertices hull(const points& p, index* src, index* dst, pair_count* cnt, index m, index a, index b);

template <class S>
vertices both_sides(const points& p, index* src, index* dst, pair_count* cnt, pair_count k,
                    index a, index f, index b) {
    auto [l, r] = S::join(
        [&] { return hull<S>(p, dst, src, cnt, k.first, a, f); },
        [&] { return hull<S>(p, dst + k.first, src + k.first, cnt + k.first, k.second, f, b); });
    return l + r;
}

template <class S>
vertices hull(const points& p, index* src, index* dst, pair_count* cnt, index m, index a, index b) {
    if (m == 0) return {0, 0};
    const index f = S::parallel_reduce(
                        index{0}, m, no_point,
                        [&](index i) { return farthest_of(p, a, b, src[i]); }, farther)
                        .idx;
    const pair_count k = filter<S>(splitter{&p, a, f, b}, src, cnt, dst, m);
    return vertices{1, f} + both_sides<S>(p, src, dst, cnt, k, a, f, b);
}

// Steps 1 and 2.  The extremes' identity is the point src[0] itself: selecting them is
// idempotent.
template <class S>
std::uint64_t quickhull(const points& p, buffers& w) {
    const index n = w.n;
    index* src = w.src.get();
    const extremes e = S::parallel_reduce(
        index{0}, n, extremes_of(src[0]), [&](index i) { return extremes_of(src[i]); },
        [&](extremes u, extremes v) { return combine(p, u, v); });
    if (e.left == e.right) return checksum({1, e.left});
    // splitter{a, f, b} with a = L, f = R, b = L: P1 = outside L->R, P2 = outside R->L.
    const pair_count k =
        filter<S>(splitter{&p, e.left, e.right, e.left}, src, w.cnt.get(), w.dst.get(), n);
    const vertices v = both_sides<S>(p, src, w.dst.get(), w.cnt.get(), k, e.left, e.right, e.left);
    return checksum(vertices{2, std::uint64_t{e.left} + e.right} + v);
}

// ---- the oracle: Andrew's monotone chain ----

// The strict convex hull (counter-clockwise, collinear points and duplicates dropped, the smallest
// index kept) of the points in order, by Andrew's monotone chain.
inline std::vector<index> monotone_chain(const points& p, std::vector<index> order) {
    std::sort(order.begin(), order.end(), [&](index i, index j) {
        if (p.x[i] != p.x[j]) return p.x[i] < p.x[j];
        if (p.y[i] != p.y[j]) return p.y[i] < p.y[j];
        return i < j;
    });
    order.erase(std::unique(order.begin(), order.end(),
                            [&](index i, index j) { return p.x[i] == p.x[j] && p.y[i] == p.y[j]; }),
                order.end());
    if (order.size() == 1) return order;
    // Lower chain left to right, then upper chain right to left; a point stays only on a strict
    // left turn (counter-clockwise), so collinear points drop out.
    std::vector<index> h;
    auto add = [&](index q, std::size_t floor) {
        while (h.size() >= floor + 2 && p.cross(h[h.size() - 2], h.back(), q) <= 0) h.pop_back();
        h.push_back(q);
    };
    for (index q : order) add(q, 0);
    const std::size_t lower = h.size();
    for (std::size_t i = order.size() - 1; i-- > 0;) add(order[i], lower - 1);
    h.pop_back();  // the first point again
    return h;
}

// The points that may be hull vertices: all but those strictly inside the hull of the extreme
// points in the eight directions +-x, +-y, +-(x + y), +-(x - y) (Akl and Toussaint's filter).  A
// point strictly inside the hull of some input points is strictly inside the whole hull, so it
// is no vertex; on uniform points the filter leaves a small fraction for the sort.
inline std::vector<index> hull_candidates(const points& p) {
    const index n = p.size();
    index e[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    auto key = [&](int d, index i) {
        const std::int64_t x = p.x[i], y = p.y[i];
        switch (d) {
            case 0: return x; case 1: return -x; case 2: return y; case 3: return -y;
            case 4: return x + y; case 5: return -x - y; case 6: return x - y;
            default: return y - x;
        }
    };
    for (index i = 1; i < n; ++i)
        for (int d = 0; d < 8; ++d)
            if (key(d, i) > key(d, e[d])) e[d] = i;
    const std::vector<index> poly = monotone_chain(p, std::vector<index>(e, e + 8));
    std::vector<index> out;
    for (index i = 0; i < n; ++i) {
        bool inside = poly.size() >= 3;
        for (std::size_t v = 0; inside && v < poly.size(); ++v)
            inside = p.cross(poly[v], poly[(v + 1) % poly.size()], i) > 0;
        if (!inside) out.push_back(i);
    }
    return out;
}

inline std::uint64_t oracle(const points& p) {
    vertices v{0, 0};
    for (index q : monotone_chain(p, hull_candidates(p))) v = v + vertices{1, q};
    return checksum(v);
}

template <class S>
output run(const args& a) {
    const points p = input(a);
    buffers w(p.size());
    auto t = measure(a, [&] { w.reset(); }, [&] { return S::run_tasks([&] { return quickhull<S>(p, w); }); });
    return result(t.time_s, t.result, oracle(p));
}

}  // namespace bench::quickhull
