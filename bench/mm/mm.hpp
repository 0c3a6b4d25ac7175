// bench/mm (WOOL's matrix multiply): C = A·B with doubles, A[i][j] = below(g, 10) row-major,
// then B from the same generator (seed 1); the outer loop over the rows of C is parallel,
// the two inner loops are serial in i-k-j order.  Repeated reps times.
// Sizes (n, reps) = (32, 2) / (256, 12) / (256, 40).
// Checksum: the wrapping sum over reps and all cells of (uint64)C[i][j]; the oracle is one
// serial product's sum times reps.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../common/bench.hpp"

namespace bench::mm {

struct input_t {
    std::size_t n = 0;
    unsigned reps = 0;
    std::vector<double> a, b;  // n*n, row-major
};

inline input_t input(const args& a) {
    require_default_variant(a);
    input_t in;
    in.n = pick<std::size_t>(a, 32, 256, 256);
    in.reps = pick(a, 2u, 12u, 40u);
    std::uint64_t g = 1;
    in.a.resize(in.n * in.n);
    in.b.resize(in.n * in.n);
    for (double& v : in.a) v = static_cast<double>(below(g, 10));
    for (double& v : in.b) v = static_cast<double>(below(g, 10));
    return in;
}

// Row i of C = A·B (i-k-j order).
inline void row(const input_t& in, double* __restrict c, std::size_t i) {
    const std::size_t n = in.n;
    const double* __restrict a = in.a.data() + i * n;
    const double* __restrict b = in.b.data();
    double* __restrict ci = c + i * n;
    for (std::size_t j = 0; j < n; ++j) ci[j] = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
        const double aik = a[k];
        const double* __restrict bk = b + k * n;
        for (std::size_t j = 0; j < n; ++j) ci[j] += aik * bk[j];
    }
}

// The sum of one product's cells (serial, inside the timed run of every system).
inline std::uint64_t cells(const std::vector<double>& c) {
    std::uint64_t s = 0;
    for (double v : c) s += static_cast<std::uint64_t>(v);
    return s;
}

// reps times: every row of C (a flat loop: OpenMP's `omp for`), then the cells are summed.
template <class S>
std::uint64_t repeat(const input_t& in, std::vector<double>& c) {
    return sum_of_reps(in.reps, [&] {
        S::flat_for(std::size_t{0}, opaque(in.n), [&](std::size_t i) { row(in, c.data(), i); });
        return cells(c);
    });
}

inline std::uint64_t oracle(const input_t& in) {
    std::vector<double> c(in.n * in.n);
    for (std::size_t i = 0; i < in.n; ++i) row(in, c.data(), i);
    return cells(c) * in.reps;
}

template <class S>
output run(const args& a) {
    const input_t in = input(a);
    std::vector<double> c(in.n * in.n);
    auto t = measure(a, [&] { std::fill(c.begin(), c.end(), poison); },  // a row left unwritten shows
                     [&] { return S::run_loops([&] { return repeat<S>(in, c); }); });
    return result(t.time_s, t.result, oracle(in));
}

}  // namespace bench::mm
