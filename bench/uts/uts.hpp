// bench/uts: the Unbalanced Tree Search trees of LS §8 (Olivier et al.'s UTS), counted by a
// recursive traversal whose loop over a node's children is a parallel reduce (LS §8.1: "we used
// parallel for-loops because they were the best fit for UTS").
//
// NOT the UTS random numbers: UTS derives a child's state with SHA-1; here every state is a
// 64-bit word and the hash is bench::hash2 (KERNELS.md, "Random numbers"), so the trees have
// the shapes of T1L / T3L (geometric with fixed branching factor b0 / binomial) but not their
// node counts.
//
//   root state        hash2(19, 0)
//   child c of s      hash2(s, c)                     (c = 0, 1, ...)
//   a node's draw     u = uniform01(s'), s' a copy of the node's state stepped once
//
// uts-geo (T1L-like): the root has b0 children (with the formula below the root of this hash
//   scheme happens to be a leaf); a node at depth 0 < d < limit has
//   floor(ln(1 - u) / ln(b0 / (1 + b0))) children (geometric, mean b0); depth >= limit: none.
//   (root children, b0, limit) = (4, 4, 5) / (4, 4, 11) / (4, 4, 13)
// uts-bin (T3L-like): the root has r children; every other node has m children if u < q, else
//   none.  (r, q, m) = (200, 0.12, 8) / (50000, 0.1246, 8) / (200000, 0.1247, 8)
//   Binomial trees near q*m = 1 are heavy-tailed: their size grows with r roughly like r^2 at
//   criticality; these sizes keep the depth near 2100 (quick) / 2600 (full).
//
// Checksum: the number of nodes.  The oracle is an iterative (explicit stack) count.
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "../common/bench.hpp"

namespace bench::uts {

inline std::uint64_t root_state() { return hash2(19, 0); }

// The node's draw u = uniform01 of a copy of its state stepped once.
inline double draw(std::uint64_t s) {
    std::uint64_t t = s;
    return uniform01(t);
}

struct geo_tree {
    std::uint64_t root_children;
    double b0;
    std::uint32_t limit;
    double ln_p;  // ln(b0 / (1 + b0))

    geo_tree(std::uint64_t root, double b, std::uint32_t depth)
        : root_children(root), b0(b), limit(depth), ln_p(std::log(b / (1.0 + b))) {}

    std::uint64_t children(std::uint64_t s, std::uint32_t depth) const {
        if (depth == 0) return root_children;
        if (depth >= limit) return 0;
        return static_cast<std::uint64_t>(std::floor(std::log(1.0 - draw(s)) / ln_p));
    }
};

struct bin_tree {
    std::uint64_t root_children;
    double q;
    std::uint64_t m;

    std::uint64_t children(std::uint64_t s, std::uint32_t depth) const {
        if (depth == 0) return root_children;
        return draw(s) < q ? m : 0;
    }
};

inline geo_tree geo_input(const args& a) {
    require_default_variant(a);
    return geo_tree(4, 4.0, pick<std::uint32_t>(a, 5, 11, 13));
}

inline bin_tree bin_input(const args& a) {
    require_default_variant(a);
    switch (size_of(a)) {
        case size_class::test: return bin_tree{200, 0.12, 8};
        case size_class::quick: return bin_tree{50000, 0.1246, 8};
        case size_class::full: break;
    }
    return bin_tree{200000, 0.1247, 8};
}

// 1 + the parallel reduce (sum) over the children.
template <class S, class Tree>
std::uint64_t count(const Tree& t, std::uint64_t s, std::uint32_t depth) {
    const std::uint64_t n = t.children(s, depth);
    return 1 + S::parallel_reduce(
                   std::uint64_t{0}, n, std::uint64_t{0},
                   [&](std::uint64_t c) { return count<S>(t, hash2(s, c), depth + 1); },
                   [](std::uint64_t x, std::uint64_t y) -> std::uint64_t { return x + y; });
}

// The oracle: an explicit-stack traversal (no recursion depth limit).
template <class Tree>
std::uint64_t oracle(const Tree& t) {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> stack{{root_state(), 0}};
    std::uint64_t nodes = 0;
    while (!stack.empty()) {
        const auto [s, depth] = stack.back();
        stack.pop_back();
        ++nodes;
        const std::uint64_t n = t.children(s, depth);
        for (std::uint64_t c = 0; c < n; ++c) stack.emplace_back(hash2(s, c), depth + 1);
    }
    return nodes;
}

template <class S, class Tree>
output run(const args& a, const Tree& t) {
    auto r = measure(a, [&] { return S::run_tasks([&] { return count<S>(t, opaque(root_state()), 0); }); });
    return result(r.time_s, r.result, oracle(t));
}

template <class S>
output run_geo(const args& a) {
    return run<S>(a, geo_input(a));
}

template <class S>
output run_bin(const args& a) {
    return run<S>(a, bin_input(a));
}

}  // namespace bench::uts
