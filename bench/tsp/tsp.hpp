// bench/tsp: the travelling salesman problem by declarative branch and bound (LS §7.3, TSP(decl):
// "parallelism exposed all the way down to the leaves of the recursion").
//
// Input (KERNELS.md): n = 7 / 12 / 12 cities; symmetric distances d[i][j] = d[j][i] =
// 1 + below(g, 1000) drawn for i < j in row-major order (seed 17); d[i][i] = 0.
//
// Algorithm (every system): tours start and end at city 0.  A partial tour is (last city,
// visited set, k = number of visited cities, cost).  search(last, visited, k, cost):
//   1. prune: if cost + (n - k) * min_edge >= best, return (min_edge: the smallest d[i][j], i != j;
//      n - k: the cities left);
//   2. if k == n: best = min(best, cost + d[last][0]) (an atomic minimum), return;
//   3. a parallel loop over c in [1, n): if c is not visited,
//      search(c, visited | {c}, k + 1, cost + d[last][c]).
// best is one shared atomic, initially the length of the greedy nearest-neighbour tour from city 0
// (nearest unvisited city, ties to the smaller index).  The search starts at search(0, {0}, 1, 0).
// The serial elision keeps the atomic (same code, serial loop).
//
// Checksum: the optimal tour length.  The oracle is the Held-Karp dynamic program.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <vector>

#include "../common/bench.hpp"

namespace bench::tsp {

struct problem {
    std::uint32_t n = 0;
    std::vector<std::int64_t> d;  // n * n, row-major
    std::int64_t min_edge = 0;
    std::int64_t greedy = 0;

    std::int64_t dist(std::uint32_t i, std::uint32_t j) const { return d[i * n + j]; }
};

inline problem generate(std::uint32_t n) {
    problem p;
    p.n = n;
    p.d.assign(static_cast<std::size_t>(n) * n, 0);
    std::uint64_t g = 17;
    p.min_edge = std::numeric_limits<std::int64_t>::max();
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = i + 1; j < n; ++j) {
            const auto w = static_cast<std::int64_t>(1 + below(g, 1000));
            p.d[i * n + j] = p.d[j * n + i] = w;
            p.min_edge = std::min(p.min_edge, w);
        }
    // Greedy nearest neighbour from city 0.
    std::vector<bool> seen(n, false);
    seen[0] = true;
    std::uint32_t last = 0;
    std::int64_t len = 0;
    for (std::uint32_t step = 1; step < n; ++step) {
        std::uint32_t best_c = n;
        for (std::uint32_t c = 0; c < n; ++c)
            if (!seen[c] && (best_c == n || p.dist(last, c) < p.dist(last, best_c))) best_c = c;
        seen[best_c] = true;
        len += p.dist(last, best_c);
        last = best_c;
    }
    p.greedy = len + p.dist(last, 0);
    return p;
}

inline problem input(const args& a) {
    require_default_variant(a);
    return generate(pick<std::uint32_t>(a, 7, 12, 12));
}

// The shared bound.
struct bound {
    alignas(64) std::atomic<std::int64_t> best;

    explicit bound(std::int64_t initial) : best(initial) {}

    std::int64_t get() const { return best.load(std::memory_order_relaxed); }
    void offer(std::int64_t len) {
        std::int64_t cur = best.load(std::memory_order_relaxed);
        while (len < cur && !best.compare_exchange_weak(cur, len, std::memory_order_relaxed)) {
        }
    }
};

// Steps 1 and 2 of search(): true when the partial tour is finished here (pruned or complete).
inline bool settle(const problem& p, bound& b, std::uint32_t last, std::uint32_t k,
                   std::int64_t cost) {
    if (cost + static_cast<std::int64_t>(p.n - k) * p.min_edge >= b.get()) return true;
    if (k == p.n) {
        b.offer(cost + p.dist(last, 0));
        return true;
    }
    return false;
}

// Step 3: every extension of the partial tour an iteration of a parallel loop.
template <class S>
void search(const problem& p, bound& b, std::uint32_t last, std::uint32_t visited,
            std::uint32_t k, std::int64_t cost) {
    if (settle(p, b, last, k, cost)) return;
    S::parallel_for(std::uint32_t{1}, p.n, [&](std::uint32_t c) {
        if (!(visited >> c & 1u)) search<S>(p, b, c, visited | 1u << c, k + 1, cost + p.dist(last, c));
    });
}

// The oracle: Held-Karp, O(2^n n^2).
inline std::int64_t oracle(const problem& p) {
    const std::uint32_t n = p.n;
    if (n == 1) return 0;
    const std::uint32_t full = 1u << (n - 1);  // subsets of cities 1..n-1
    constexpr std::int64_t inf = std::numeric_limits<std::int64_t>::max() / 4;
    // dp[S][j]: shortest path from 0 through exactly S (cities 1..n-1, bit j-1), ending at j in S.
    std::vector<std::int64_t> dp(static_cast<std::size_t>(full) * n, inf);
    for (std::uint32_t j = 1; j < n; ++j) dp[(1u << (j - 1)) * n + j] = p.dist(0, j);
    for (std::uint32_t S = 1; S < full; ++S)
        for (std::uint32_t j = 1; j < n; ++j) {
            const std::int64_t here = dp[S * n + j];
            if (!(S >> (j - 1) & 1u) || here >= inf) continue;
            for (std::uint32_t c = 1; c < n; ++c) {
                if (S >> (c - 1) & 1u) continue;
                const std::uint32_t T = S | 1u << (c - 1);
                dp[T * n + c] = std::min(dp[T * n + c], here + p.dist(j, c));
            }
        }
    std::int64_t best = inf;
    for (std::uint32_t j = 1; j < n; ++j)
        best = std::min(best, dp[(full - 1) * n + j] + p.dist(j, 0));
    return best;
}

template <class S>
output run(const args& a) {
    const problem p = input(a);
    auto t = measure(a, [&] {
        bound b(p.greedy);
        return S::run_tasks([&] {
            search<S>(p, b, 0, opaque(1u), 1, 0);
            return b.get();
        });
    });
    return result(t.time_s, t.result, oracle(p));
}

}  // namespace bench::tsp
