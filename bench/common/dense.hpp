// bench/common/dense.hpp: what the recursive dense matrix kernels (mmtemp, strassen) share: the
// input (two n x n matrices of small integers as doubles, so every product and sum is exact and
// every algorithm and summation order gives the same bits), a square view into a matrix with a
// row stride, the serial leaf product, the checksum and the plain i-k-j oracle.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bench.hpp"

namespace bench::dense {

// NAR §4 "Blocked recursive matrix multiply": "The recursion stops when the blocks are down to
// the size of 64 x 64, after which a standard, row-column matrix multiply is executed serially"
// (the same for Strassen).  The algorithm's base case, not a grain.
constexpr std::size_t leaf_size = 64;

struct input_t {
    std::size_t n = 0;           // a power of two times leaf_size
    std::vector<double> a, b;    // n*n, row-major
};

// A[i][j] = below(g, 10) row-major, then B from the same generator (seed 37).
inline input_t generate(std::size_t n) {
    input_t in;
    in.n = n;
    std::uint64_t g = 37;
    in.a.resize(n * n);
    in.b.resize(n * n);
    for (double& v : in.a) v = static_cast<double>(below(g, 10));
    for (double& v : in.b) v = static_cast<double>(below(g, 10));
    return in;
}

// An n x n block of a row-major matrix whose rows are `ld` doubles apart.
struct view {
    double* p;
    std::size_t ld;
    double& at(std::size_t i, std::size_t j) const { return p[i * ld + j]; }
    // Quadrant (r, c) of a block of side 2h.
    view quad(std::size_t h, std::size_t r, std::size_t c) const {
        return {p + r * h * ld + c * h, ld};
    }
};

// C = A·B for n x n blocks, serially, i-k-j (the leaf of the recursions).
inline void leaf_product(view a, view b, view c, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        double* __restrict ci = c.p + i * c.ld;
        for (std::size_t j = 0; j < n; ++j) ci[j] = 0.0;
        for (std::size_t k = 0; k < n; ++k) {
            const double aik = a.at(i, k);
            const double* __restrict bk = b.p + k * b.ld;
            for (std::size_t j = 0; j < n; ++j) ci[j] += aik * bk[j];
        }
    }
}

// The wrapping sum over cells of (uint64)C[i][j] * (i*n + j + 1): a cell in the wrong place
// changes it, unlike a plain sum.
inline std::uint64_t checksum(const std::vector<double>& c) {
    std::uint64_t s = 0;
    for (std::size_t k = 0; k < c.size(); ++k) s += static_cast<std::uint64_t>(c[k]) * (k + 1);
    return s;
}

// The plain i-k-j product of the whole matrices (independent of the recursions).
inline std::uint64_t oracle(input_t& in) {
    std::vector<double> c(in.n * in.n);
    leaf_product({in.a.data(), in.n}, {in.b.data(), in.n}, {c.data(), in.n}, in.n);
    return checksum(c);
}

// A kernel's timed run: the input at the size asked for, C = multiply(A, B, C, n) inside the
// system's task context, and C's checksum against the oracle.  `S` is the system adapter.
template <class S, class Multiply>
output run_product(const args& a, Multiply multiply) {
    require_default_variant(a);
    input_t in = generate(pick<std::size_t>(a, 128, 512, 1024));
    std::vector<double> c(in.n * in.n);
    auto t = measure(
        a, [&] { std::fill(c.begin(), c.end(), poison); },  // a cell left unwritten shows
        [&] {
            S::run_tasks([&] {
                multiply({in.a.data(), in.n}, {in.b.data(), in.n}, {c.data(), in.n}, in.n);
            });
        },
        [&] { return checksum(c); });
    return result(t.time_s, t.result, oracle(in));
}

}  // namespace bench::dense
