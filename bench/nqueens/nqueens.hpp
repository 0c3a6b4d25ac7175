// bench/nqueens: LS Algorithm 2, declarative.  At row d, a parallel reduce over the columns
// 0..N-1; a column that is safe recurses on a copy of the partial placement; a full board
// counts 1.  Sizes N = 8 / 12 / 14; checksum: the number of solutions (closed-form oracle).
#pragma once

#include <cstdint>
#include <cstdlib>

#include "../common/bench.hpp"

namespace bench::nqueens {

// The partial placement: q[r] is the column of the queen in row r (rows 0..d-1 are set).
// A fixed-capacity int array, copied whole (one small memcpy) when a safe column recurses.
constexpr int max_n = 16;
struct board {
    int q[max_n];
};

inline int input(const args& a) {
    require_default_variant(a);
    return pick(a, 8, 12, 14);
}

// Known solution counts.
inline std::uint64_t oracle(int n) {
    switch (n) {
        case 8: return 92;
        case 11: return 2680;
        case 12: return 14200;
        case 14: return 365596;
        default: return 0;
    }
}

// Can a queen go to (row d, column c) given the queens of rows 0..d-1?
inline bool safe(const board& b, int d, int c) {
    for (int r = 0; r < d; ++r) {
        const int qc = b.q[r];
        if (qc == c || std::abs(qc - c) == d - r) return false;
    }
    return true;
}

// Row d: the sum over the columns of 0 for an unsafe column, else the count below it.
template <class S>
std::uint64_t solve(const board& b, int d, int n) {
    if (d == n) return 1;
    return S::parallel_reduce(
        0, n, std::uint64_t{0},
        [&](int c) -> std::uint64_t {
            if (!safe(b, d, c)) return 0;
            board nb = b;
            nb.q[d] = c;
            return solve<S>(nb, d + 1, n);
        },
        [](std::uint64_t x, std::uint64_t y) -> std::uint64_t { return x + y; });
}

template <class S>
output run(const args& a) {
    const int n = input(a);
    auto t = measure(a, [&] { return S::run_tasks([&] { return solve<S>(board{}, 0, opaque(n)); }); });
    return result(t.time_s, t.result, oracle(n));
}

}  // namespace bench::nqueens
