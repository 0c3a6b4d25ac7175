// bench/spmv (LS, declarative): y = M·x for a CSR matrix, a parallel loop over the rows and
// in each row a parallel reduce over its nonzeros (one task per nonzero in the declarative
// style).  Generation (seed 7), row by row, for each nonzero: col = below(g, cols), then
// value = below(g, 17) - 8 (as double); then, from the same generator, x[c] = below(g, 9) - 4
// for c = 0 .. cols-1.  Repeated reps times.
// Sizes (rows, cols, nnz/row, reps) = (200, 100, 10, 1) / (40000, 5000, 100, 10) /
// (80000, 5000, 500, 3).
// Checksum: the wrapping sum over reps and rows of (int64)y[r], taken (and printed) as an
// unsigned 64-bit number like every other checksum (the Rust variants print the same).
// The values are small integers, so every summation order is exact; the oracle is one
// serial product's sum times reps.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../common/bench.hpp"
#include "../common/csr.hpp"

namespace bench::spmv {

// The matrix and vector (csr: row_ptr, col, val, x over the cols), and the sizes.
struct input_t : csr {
    std::size_t rows = 0, cols = 0, nnz_per_row = 0;
    unsigned reps = 0;
};

inline input_t input(const args& a) {
    require_default_variant(a);
    input_t in;
    in.rows = pick<std::size_t>(a, 200, 40000, 80000);
    in.cols = pick<std::size_t>(a, 100, 5000, 5000);
    in.nnz_per_row = pick<std::size_t>(a, 10, 100, 500);
    in.reps = pick(a, 1u, 10u, 3u);
    std::uint64_t g = 7;
    static_cast<csr&>(in) = random_csr(g, in.rows, in.cols, [&](std::uint64_t&) { return std::uint64_t{in.nnz_per_row}; });
    return in;
}

// One nonzero's term (the map of the row's reduce).
inline double term(const input_t& in, std::size_t k) { return in.val[k] * in.x[in.col[k]]; }

// Row r, serially.
inline double row_serial(const input_t& in, std::size_t r) {
    double s = 0.0;
    for (std::size_t k = in.row_ptr[r]; k < in.row_ptr[r + 1]; ++k) s += term(in, k);
    return s;
}

// reps times: y (a flat loop over the rows, OpenMP's `omp for`; each row a parallel reduce over
// its nonzeros, serial within an OpenMP row: system_omp.hpp), then its sum.
template <class S>
std::uint64_t repeat(const input_t& in, std::vector<double>& y) {
    return sum_of_reps(in.reps, [&] {
        S::flat_for(std::size_t{0}, opaque(in.rows), [&](std::size_t r) {
            y[r] = S::parallel_reduce(
                in.row_ptr[r], in.row_ptr[r + 1], 0.0,
                [&](std::size_t k) -> double { return term(in, k); },
                [](double u, double v) -> double { return u + v; });
        });
        return rows_sum(y);
    });
}

inline std::uint64_t oracle(const input_t& in) {
    std::vector<double> y(in.rows);
    for (std::size_t r = 0; r < in.rows; ++r) y[r] = row_serial(in, r);
    return rows_sum(y) * in.reps;
}

template <class S>
output run(const args& a) {
    const input_t in = input(a);
    std::vector<double> y(in.rows);
    auto t = measure(a, [&] { std::fill(y.begin(), y.end(), poison); },  // a row left unwritten shows
                     [&] { return S::run_loops([&] { return repeat<S>(in, y); }); });
    return result(t.time_s, t.result, oracle(in));
}

}  // namespace bench::spmv
