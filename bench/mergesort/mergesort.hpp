// bench/mergesort: recursive merge sort with a parallel merge (HB §5, after PBBS's merge sort),
// declarative: both halves of the sort are a join and so are both halves of every merge, down to
// single elements (no cutoff to a serial sort or a serial merge).
//
// Input (KERNELS.md): n = 1000 / 300000 / 100000000 uint64 keys, keys[i] = the i-th
// splitmix64 output of seed 23.
//
// Algorithm (every system), on the array a and a buffer b of the same length:
//   sort(a, b, n, to_b): sorts a[0, n); the result ends in b when to_b, else in a.
//     n == 0: nothing; n == 1: b[0] = a[0] when to_b.
//     otherwise h = n / 2; join(sort(a, b, h, !to_b), sort(a + h, b + h, n - h, !to_b)); then
//     merge the two sorted halves (in b when to_b, else in a) into the other array.
//   merge(x, nx, y, ny, out): if nx < ny swap the runs (so x is the larger one, x on ties);
//     nx == 0: nothing; else mx = nx / 2, p = x[mx], my = the number of y's keys < p
//     (lower bound by binary search), out[mx + my] = p, and
//     join(merge(x, mx, y, my, out),
//          merge(x + mx + 1, nx - mx - 1, y + my, ny - my, out + mx + my + 1)).
// The run sorts keys in a with sort(a, b, n, false).  Timed: the sort only; copying the keys into
// a (and allocating b) happens before the clock starts.
//
// Checksum: sum over i of sorted[i] * (i + 1), wrapping; ok also requires sortedness.  The oracle
// is std::sort of the same keys.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "../common/bench.hpp"

namespace bench::mergesort {

using key = std::uint64_t;

inline std::vector<key> generate(std::size_t n) {
    std::vector<key> keys(n);
    std::uint64_t g = 23;
    for (auto& k : keys) k = splitmix64(g);
    return keys;
}

inline std::vector<key> input(const args& a) {
    require_default_variant(a);
    return generate(pick<std::size_t>(a, 1000, 300000, 100000000));
}

// Where the larger run's pivot goes in the smaller run: the number of keys < p.  The search Rust's
// slice::partition_point makes (the Rust kernel calls it): halve the window a fixed number of
// times, keeping the lower half's base or the midpoint by a select, not a branch, then look at the
// last key.  std::lower_bound branches on each comparison, and on random keys half of those
// branches are mispredicted: with it the C++ kernel timed the two standard libraries' searches
// beside the runtimes (docs/results/fine-grained.md, "mergesort's binary search").
inline std::size_t lower(const key* y, std::size_t ny, key p) {
    if (ny == 0) return 0;
    std::size_t base = 0;
    for (std::size_t size = ny; size > 1;) {
        const std::size_t half = size / 2;
        const std::size_t mid = base + half;
        base = y[mid] < p ? mid : base;
        size -= half;
    }
    return base + (y[base] < p ? 1 : 0);
}

// The working arrays of one run.
struct arrays {
    explicit arrays(std::size_t n) : a(new key[n]), b(new key[n]), n(n) {}
    void load(const std::vector<key>& keys) { std::copy(keys.begin(), keys.end(), a.get()); }
    std::unique_ptr<key[]> a, b;
    std::size_t n;
};

// The second branches capture their arguments computed, by value (as the Rust kernel's closures
// own their subslices): 40 bytes or less, so weft copies them into its frame instead of pointing
// at seven variables kept in memory (README "Cheap joins").  The first branches are `noexcept`
// (nothing here throws): a join then needs no exception cleanup around its first call, 5-6 % of
// weft's time at 1 worker (docs/results/fine-grained.md, "mergesort's first branches noexcept").
template <class S>
void merge(const key* x, std::size_t nx, const key* y, std::size_t ny, key* out) {
    if (nx < ny) {
        std::swap(x, y);
        std::swap(nx, ny);
    }
    if (nx == 0) return;
    const std::size_t mx = nx / 2;
    const key p = x[mx];
    const std::size_t my = lower(y, ny, p);
    out[mx + my] = p;
    S::join([=]() noexcept { merge<S>(x, mx, y, my, out); },
            [x2 = x + mx + 1, nx2 = nx - mx - 1, y2 = y + my, ny2 = ny - my, out2 = out + mx + my + 1] {
                merge<S>(x2, nx2, y2, ny2, out2);
            });
}

template <class S>
void sort(key* a, key* b, std::size_t n, bool to_b) {
    if (n <= 1) {
        if (n == 1 && to_b) b[0] = a[0];
        return;
    }
    const std::size_t h = n / 2;
    S::join([=]() noexcept { sort<S>(a, b, h, !to_b); }, [a2 = a + h, b2 = b + h, n2 = n - h, to_b] { sort<S>(a2, b2, n2, !to_b); });
    if (to_b)
        merge<S>(a, h, a + h, n - h, b);
    else
        merge<S>(b, h, b + h, n - h, a);
}

// Checksum of the sorted array, and whether it is sorted.
struct verdict {
    std::uint64_t sum;
    bool sorted;
    bool operator==(const verdict&) const = default;
};

inline verdict check(const key* s, std::size_t n) {
    std::uint64_t sum = 0;
    bool sorted = true;
    for (std::size_t i = 0; i < n; ++i) {
        sum += s[i] * static_cast<std::uint64_t>(i + 1);
        if (i > 0 && s[i - 1] > s[i]) sorted = false;
    }
    return {sum, sorted};
}

inline std::uint64_t oracle(std::vector<key> keys) {
    std::sort(keys.begin(), keys.end());
    return check(keys.data(), keys.size()).sum;
}

// The output of a run: the checksum against the oracle, failing on an unsorted array too.
inline output finish(double time_s, const verdict& v, const std::vector<key>& keys) {
    output o = result(time_s, v.sum, oracle(keys));
    if (!v.sorted) {
        o.ok = false;
        o.expected += " (and the array is not sorted)";
    }
    return o;
}

template <class S>
output run(const args& a) {
    const std::vector<key> keys = input(a);
    arrays s(keys.size());
    auto t = measure(
        a, [&] { s.load(keys); },
        [&] { S::run_tasks([&] { sort<S>(opaque(s.a.get()), s.b.get(), s.n, false); }); },
        [&] { return check(s.a.get(), s.n); });  // every repetition's sort is checked
    return finish(t.time_s, t.result, keys);
}

}  // namespace bench::mergesort
