// bench/flat_spmv (issue 10's flat loops): y += M·x for a square CSR matrix as ONE flat parallel
// loop over the rows, each row's nonzeros a serial inner loop: the loop OpenMP codes write as
// `omp for` over the rows (tools/flat_loops.cpp's spmv, with the suite's generator).  Unlike
// bench/spmv (LS's declarative form, a parallel reduce in every row) nothing is nested.
// Generation (seed 43), row by row: the row's nonzero count 4 + below(g, 13) (4..16), then for
// each nonzero col = below(g, rows), value = below(g, 17) - 8 (as double); then, from the same
// generator, x[c] = below(g, 9) - 4 for c = 0 .. rows-1.
// Sizes (rows, reps) = (300, 2) / (2^18, 10) / (2^20, 20).
// One run: y = 0, then reps times the loop y[r] += (row r)·x, so every repetition's work reaches
// y.  Checksum: the wrapping sum over rows of (int64)y[r] (small integers: exact in every
// summation order); the oracle is one serial product's sum times reps.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../common/bench.hpp"
#include "../common/csr.hpp"
#include "../common/schedule.hpp"

namespace bench::flat_spmv {

// The matrix and vector (csr: row_ptr, col, val, x over the rows), and the sizes.
struct input_t : csr {
    std::size_t rows = 0;
    unsigned reps = 0;
};

inline input_t input(const args& a) {
    input_t in;
    in.rows = pick<std::size_t>(a, 300, std::size_t{1} << 18, std::size_t{1} << 20);
    in.reps = pick(a, 2u, 10u, 20u);
    std::uint64_t g = 43;
    static_cast<csr&>(in) = random_csr(g, in.rows, in.rows, [](std::uint64_t& state) { return 4 + below(state, 13); });
    return in;
}

// Row r's product with x, serially.
inline double row_dot(const std::size_t* row_ptr, const std::uint32_t* col, const double* val,
                      const double* x, std::size_t r) {
    double acc = 0.0;
    for (std::size_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k) acc += val[k] * x[col[k]];
    return acc;
}

// reps flat loops over the rows (OpenMP's `omp for`).  The body captures the arrays' pointers
// by value, as a hand-written loop would hold them in registers.
template <class S>
void repeat(const input_t& in, std::vector<double>& y) {
    const std::size_t* rp = in.row_ptr.data();
    const std::uint32_t* col = in.col.data();
    const double* val = in.val.data();
    const double* x = in.x.data();
    double* yp = y.data();
    for (unsigned rep = 0; rep < in.reps; ++rep)
        S::flat_for(std::size_t{0}, opaque(in.rows),
                    [=](std::size_t r) { yp[r] += row_dot(rp, col, val, x, r); });
}

inline std::uint64_t oracle(const input_t& in) {
    std::vector<double> y(in.rows);
    for (std::size_t r = 0; r < in.rows; ++r)
        y[r] = row_dot(in.row_ptr.data(), in.col.data(), in.val.data(), in.x.data(), r);
    return rows_sum(y) * in.reps;
}

template <class S>
output run(const args& a) {
    select_flat_schedule<S>(a);
    const input_t in = input(a);
    std::vector<double> y(in.rows);
    auto t = measure(
        a, [&] { std::fill(y.begin(), y.end(), 0.0); },
        [&] { S::run_loops([&] { repeat<S>(in, y); }); }, [&] { return rows_sum(y); });
    return result(t.time_s, t.result, oracle(in));
}

}  // namespace bench::flat_spmv
