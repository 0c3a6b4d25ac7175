// bench/floyd (LS's Floyd-Warshall): all-pairs shortest paths on an n x n int32 matrix:
// d[i][j] = 0 on the diagonal, else (one uniform01 draw) with probability 0.3
// 1 + below(g, 100), else INF = 2^29 (seed 13, row-major; the diagonal draws nothing).
// For k serially: a parallel loop over i, the loop over j serial:
// d[i][j] = min(d[i][j], d[i][k] + d[k][j]).  Sizes n = 64 / 640 / 2048.
// Checksum: the wrapping sum of the finite (< INF) d[i][j]; the oracle is the serial result,
// computed untimed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../common/bench.hpp"

namespace bench::floyd {

constexpr std::int32_t inf = std::int32_t{1} << 29;

struct input_t {
    std::size_t n = 0;
    std::vector<std::int32_t> d0;  // the generated matrix; each run works on a copy
};

inline input_t input(const args& a) {
    require_default_variant(a);
    input_t in;
    in.n = pick<std::size_t>(a, 64, 640, 2048);
    in.d0.resize(in.n * in.n);
    std::uint64_t g = 13;
    for (std::size_t i = 0; i < in.n; ++i)
        for (std::size_t j = 0; j < in.n; ++j)
            in.d0[i * in.n + j] =
                i == j ? 0
                       : (uniform01(g) < 0.3 ? 1 + static_cast<std::int32_t>(below(g, 100)) : inf);
    return in;
}

// Step k, row i.  Row k itself is left alone: with d[k][k] = 0 the step cannot change it,
// and not writing it keeps the parallel loop free of a read/write race on row k.
inline void relax(std::int32_t* d, std::size_t n, std::size_t k, std::size_t i) {
    if (i == k) return;
    std::int32_t* __restrict di = d + i * n;
    const std::int32_t* __restrict dk = d + k * n;
    const std::int32_t dik = di[k];
    for (std::size_t j = 0; j < n; ++j) {
        const std::int32_t via = dik + dk[j];  // <= 2 * INF = 2^30: no overflow
        di[j] = via < di[j] ? via : di[j];
    }
}

inline std::uint64_t checksum(const std::vector<std::int32_t>& d) {
    std::uint64_t s = 0;
    for (std::int32_t v : d)
        if (v < inf) s += static_cast<std::uint64_t>(v);
    return s;
}

// For each k (serially) a flat loop over the rows i (OpenMP's `omp for`).
template <class S>
void solve(std::int32_t* d, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k)
        S::flat_for(std::size_t{0}, n, [&](std::size_t i) { relax(d, n, k, i); });
}

inline std::uint64_t oracle(const input_t& in) {
    std::vector<std::int32_t> d = in.d0;
    for (std::size_t k = 0; k < in.n; ++k)
        for (std::size_t i = 0; i < in.n; ++i) relax(d.data(), in.n, k, i);
    return checksum(d);
}

template <class S>
output run(const args& a) {
    const input_t in = input(a);
    std::vector<std::int32_t> d;
    auto t = measure(
        a, [&] { d = in.d0; }, [&] { S::run_loops([&] { solve<S>(d.data(), opaque(in.n)); }); },
        [&] { return checksum(d); });
    return result(t.time_s, t.result, oracle(in));
}

}  // namespace bench::floyd
