// bench/ssf (WOOL's substring finder): on the Fibonacci string s_n (s0 = "a", s1 = "b",
// s_n = s_{n-1} s_{n-2}), for each position i (the parallel loop), for every j != i in
// ascending order, k = the length of the common prefix of the suffixes at i and j; keep the
// largest k and the first j reaching it.  Sizes n = 10 / 17 / 17 (lengths 89 / 2584 / 2584).
// Checksum: the wrapping sum over i of max_len[i] * 1000003 + max_pos[i]; the oracle is the
// serial result, computed untimed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../common/bench.hpp"

namespace bench::ssf {

struct input_t {
    std::string s;
};

inline input_t input(const args& a) {
    require_default_variant(a);
    const unsigned n = pick(a, 10u, 17u, 17u);
    std::string prev = "a", cur = "b";  // s0, s1
    if (n == 0) return {prev};
    for (unsigned k = 2; k <= n; ++k) {
        std::string next = cur + prev;
        prev = std::move(cur);
        cur = std::move(next);
    }
    return {cur};
}

// The per-position results, written by the parallel loop (each i its own slots).
struct result_t {
    std::vector<std::size_t> max_len, max_pos;
    explicit result_t(std::size_t n) : max_len(n), max_pos(n) {}
};

// The body of the parallel loop: position i.
inline void position(const std::string& str, result_t& out, std::size_t i) {
    const char* s = str.data();
    const std::size_t n = str.size();
    std::size_t best_len = 0, best_pos = 0;
    bool found = false;
    for (std::size_t j = 0; j < n; ++j) {
        if (j == i) continue;
        const std::size_t limit = n - (i > j ? i : j);
        std::size_t k = 0;
        while (k < limit && s[i + k] == s[j + k]) ++k;
        if (!found || k > best_len) {  // strictly larger: the first j wins a tie
            best_len = k;
            best_pos = j;
            found = true;
        }
    }
    out.max_len[i] = best_len;
    out.max_pos[i] = best_pos;
}

inline std::uint64_t checksum(const result_t& r) {
    std::uint64_t s = 0;
    for (std::size_t i = 0; i < r.max_len.size(); ++i)
        s += static_cast<std::uint64_t>(r.max_len[i]) * 1000003ULL + r.max_pos[i];
    return s;
}

inline std::uint64_t oracle(const input_t& in) {
    result_t r(in.s.size());
    for (std::size_t i = 0; i < in.s.size(); ++i) position(in.s, r, i);
    return checksum(r);
}

template <class S>
output run(const args& a) {
    const input_t in = input(a);
    result_t r(in.s.size());
    auto t = measure(
        a,
        [&] {  // poison: a position the run skips changes the checksum
            std::fill(r.max_len.begin(), r.max_len.end(), ~std::size_t{0});
            std::fill(r.max_pos.begin(), r.max_pos.end(), ~std::size_t{0});
        },
        [&] {
            S::run_loops([&] {
                S::flat_for(std::size_t{0}, opaque(in.s.size()),
                            [&](std::size_t i) { position(in.s, r, i); });
            });
        },
        [&] { return checksum(r); });
    return result(t.time_s, t.result, oracle(in));
}

}  // namespace bench::ssf
