// bench/dtree: an ID3 decision-tree builder on generated data (NAR §4 "ID3 decision tree
// builder": discrete attributes, top-down, recursive divide and conquer; each subtree built in
// parallel, the counting that picks a node's attribute parallel too; "temporary space is
// allocated to store the subset of training examples used to build each subtree, and is freed
// once the subtree is built").
//
// Input (seed 43): N examples of A = 8 attributes with V = 4 values each (uint8, below(g, 4) in
// example order, attribute 0 first) and a class bit: c = ((x0 + x1) % 4 >= 2) XOR (x2 == x3),
// flipped when the next uniform01(g) < 0.1 (10 % label noise, so the tree grows to the data).
// N = 2000 / 400000 / 4000000 (NAR's 4 million at full).
//
// A node (its examples as an index array, the attributes still unused, a key):
//   * counts, for every unused attribute a (a parallel loop over attributes), the examples of
//     each (value, class) serially over the node's examples, into a temporary count table;
//   * is a leaf when its examples are all of one class, when no attribute is left, or when no
//     unused attribute takes two values on them;
//   * else splits on the attribute of highest score sum_v (n_v0^2 + n_v1^2) / n_v (the Gini
//     criterion; the first attribute on ties, computed serially in attribute order so that every
//     system picks the same one), and builds the subtree of each value v with n_v > 0 (a parallel
//     reduce over values): the child allocates its index array of n_v examples, fills it by a
//     serial scan of the parent's, builds its subtree, and frees it.
// Every count table and index array goes through the system's allocator (weft: weft::malloc).
// No serial cutoff (NAR's went serial below 10,000 examples: a grain, left out here).
//
// Checksum: the wrapping sum over nodes of hash2(key, attribute * 2^40 + majority * 2^32 + n)
// (attribute = A for a leaf, majority = the class of at least half its examples); the root's
// key is 1 and the child for value v of a node with key k has key hash2(k, v + 1).  The oracle is
// the same recursion with std::vector temporaries and no system (serial, in the same process).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "../common/bench.hpp"
#include "../common/temp.hpp"

namespace bench::dtree {

constexpr unsigned attrs = 8;
constexpr unsigned values = 4;

struct input_t {
    std::size_t n = 0;
    std::vector<std::uint8_t> x;     // n * attrs, example-major: x[i * attrs + a]
    std::vector<std::uint8_t> cls;   // n
    std::vector<std::uint32_t> all;  // 0 .. n-1: the root's examples
};

inline input_t input(const args& a) {
    require_default_variant(a);
    input_t in;
    in.n = pick<std::size_t>(a, 2000, 400000, 4000000);
    in.x.resize(in.n * attrs);
    in.cls.resize(in.n);
    in.all.resize(in.n);
    std::uint64_t g = 43;
    for (std::size_t i = 0; i < in.n; ++i) {
        std::uint8_t* xi = &in.x[i * attrs];
        for (unsigned k = 0; k < attrs; ++k) xi[k] = static_cast<std::uint8_t>(below(g, values));
        bool c = (xi[0] + xi[1]) % 4 >= 2;
        c ^= xi[2] == xi[3];
        if (uniform01(g) < 0.1) c = !c;
        in.cls[i] = c;
        in.all[i] = static_cast<std::uint32_t>(i);
    }
    return in;
}

// The (value, class) counts of attribute a over the examples idx[0..n): out[v * 2 + c].
inline void count_attribute(const input_t& in, const std::uint32_t* idx, std::size_t n,
                            unsigned a, std::uint32_t* out) {
    for (unsigned k = 0; k < 2 * values; ++k) out[k] = 0;
    for (std::size_t e = 0; e < n; ++e) {
        const std::uint32_t i = idx[e];
        ++out[in.x[i * attrs + a] * 2 + in.cls[i]];
    }
}

// The chosen split: the attribute (attrs = none: a leaf) and the node's class-1 count.
struct split_t {
    unsigned attribute = attrs;
    std::size_t ones = 0;
};

// The node's class-1 count: from the first unused attribute's counts, or by a serial count
// when every attribute is used (then no table was counted).
inline std::size_t class_ones(const input_t& in, const std::uint32_t* idx, std::size_t n,
                              const std::uint32_t* table, unsigned used) {
    std::size_t ones = 0;
    for (unsigned a = 0; a < attrs; ++a)
        if (!(used >> a & 1)) {
            for (unsigned v = 0; v < values; ++v) ones += table[a * 2 * values + v * 2 + 1];
            return ones;
        }
    for (std::size_t e = 0; e < n; ++e) ones += in.cls[idx[e]];
    return ones;
}

// Picks the attribute from the count table (serially, in attribute order).
inline split_t choose(const input_t& in, const std::uint32_t* idx, std::size_t n,
                      const std::uint32_t* table, unsigned used) {
    split_t s;
    s.ones = class_ones(in, idx, n, table, used);
    if (used == (1u << attrs) - 1 || s.ones == 0 || s.ones == n) return s;
    double best = -1.0;
    for (unsigned a = 0; a < attrs; ++a) {
        if (used >> a & 1) continue;
        const std::uint32_t* t = table + a * 2 * values;
        double score = 0.0;
        unsigned nonempty = 0;
        for (unsigned v = 0; v < values; ++v) {
            const double c0 = t[v * 2], c1 = t[v * 2 + 1];
            if (c0 + c1 == 0) continue;
            ++nonempty;
            score += (c0 * c0 + c1 * c1) / (c0 + c1);
        }
        if (nonempty >= 2 && score > best) {
            best = score;
            s.attribute = a;
        }
    }
    return s;
}

inline std::uint64_t node_hash(std::uint64_t key, unsigned attribute, std::size_t ones,
                               std::size_t n) {
    const std::uint64_t majority = 2 * ones >= n ? 1 : 0;
    return hash2(key, (std::uint64_t{attribute} << 40) + (majority << 32) + n);
}

// The examples of idx[0..n) whose attribute a has value v, in order, into out.
inline void select(const input_t& in, const std::uint32_t* idx, std::size_t n, unsigned a,
                   unsigned v, std::uint32_t* out) {
    std::size_t k = 0;
    for (std::size_t e = 0; e < n; ++e)
        if (in.x[idx[e] * attrs + a] == v) out[k++] = idx[e];
}

// Builds the subtree of the examples idx[0..n) (n >= 1); returns its nodes' hash sum.
template <class S>
std::uint64_t build(const input_t& in, const std::uint32_t* idx, std::size_t n, unsigned used,
                    std::uint64_t key) {
    temp_array<S, std::uint32_t> table(attrs * 2 * values);
    std::uint32_t* const t = table.data();
    S::parallel_for(0u, attrs, [&](unsigned a) {
        if (!(used >> a & 1)) count_attribute(in, idx, n, a, t + a * 2 * values);
    });
    const split_t s = choose(in, idx, n, t, used);
    const std::uint64_t self = node_hash(key, s.attribute, s.ones, n);
    if (s.attribute == attrs) return self;
    const unsigned a = s.attribute;
    std::array<std::size_t, values> sizes{};
    for (unsigned v = 0; v < values; ++v)
        sizes[v] = t[a * 2 * values + v * 2] + t[a * 2 * values + v * 2 + 1];
    const std::uint64_t below_sum = S::parallel_reduce(
        0u, values, std::uint64_t{0},
        [&](unsigned v) -> std::uint64_t {
            if (sizes[v] == 0) return 0;
            temp_array<S, std::uint32_t> subset(sizes[v]);
            select(in, idx, n, a, v, subset.data());
            return build<S>(in, subset.data(), sizes[v], used | 1u << a, hash2(key, v + 1));
        },
        [](std::uint64_t x, std::uint64_t y) -> std::uint64_t { return x + y; });
    return self + below_sum;
}

// The same recursion with no system and std::vector temporaries.
inline std::uint64_t oracle(const input_t& in, const std::uint32_t* idx, std::size_t n,
                            unsigned used, std::uint64_t key) {
    std::vector<std::uint32_t> table(attrs * 2 * values);
    for (unsigned a = 0; a < attrs; ++a)
        if (!(used >> a & 1)) count_attribute(in, idx, n, a, &table[a * 2 * values]);
    const split_t s = choose(in, idx, n, table.data(), used);
    std::uint64_t sum = node_hash(key, s.attribute, s.ones, n);
    if (s.attribute == attrs) return sum;
    for (unsigned v = 0; v < values; ++v) {
        std::vector<std::uint32_t> subset(n);
        std::size_t k = 0;
        for (std::size_t e = 0; e < n; ++e)
            if (in.x[idx[e] * attrs + s.attribute] == v) subset[k++] = idx[e];
        if (k) sum += oracle(in, subset.data(), k, used | 1u << s.attribute, hash2(key, v + 1));
    }
    return sum;
}

template <class S>
output run(const args& a) {
    const input_t in = input(a);
    auto t = measure(a, [&] {
        return S::run_tasks([&] { return build<S>(in, in.all.data(), in.n, 0u, 1); });
    });
    return result(t.time_s, t.result, oracle(in, in.all.data(), in.n, 0u, 1));
}

}  // namespace bench::dtree
