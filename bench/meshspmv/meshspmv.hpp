// bench/meshspmv: NAR's sparse matrix-vector product on a mesh-like matrix (NAR §4 "Sparse MV":
// a parallel loop over rows, each row's products with the vector computed in parallel into a
// temporary and summed by a parallel tree; §5.4: 20 iterations of w = M v with M from a finite
// element mesh).  The mesh here is generated: the nodes of a k x k x k grid, numbered
// x + k (y + k z); node i is joined to each of its up to 26 grid neighbours j with probability
// 3/8, decided by hash2(min(i, j), max(i, j)) % 8 < 3 (so the pattern is symmetric and the row
// lengths irregular, 1 + about 9.75 on average inside the grid).  Row i holds the diagonal and
// its neighbours, columns ascending; the values (not symmetric) are below(g, 17) - 8 row by row
// (seed 53), v0[c] = below(g, 9) - 4 next.
//
// Iteration t: w = M v (a flat loop over rows, OpenMP's `omp for`; row r allocates a temporary
// of its nnz products, fills it by a parallel loop, sums it by a parallel reduce, frees it),
// then the checksum term sum_r (uint64)(int64) w[r] * (r + 1) and the next vector
// v[r] = ((int64) w[r] mod 9) - 4 (mod taken non-negative, so v stays small and every product
// and sum is an exact integer in doubles).  The temporaries go through the system's allocator
// (weft: weft::malloc).  (k, iterations) = (6, 3) / (40, 20) / (80, 20).
// Named meshspmv: bench/spmv is the random CSR kernel of the LS papers.
//
// Checksum: the wrapping sum of the iterations' terms; the oracle is the plain CSR product
// (serial, no temporaries) iterated the same way.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../common/bench.hpp"
#include "../common/temp.hpp"

namespace bench::meshspmv {

struct input_t {
    std::size_t rows = 0;
    unsigned iterations = 0;
    std::vector<std::size_t> row_ptr;  // rows + 1
    std::vector<std::uint32_t> col;
    std::vector<double> val;
    std::vector<double> v0;            // rows
};

// Whether grid nodes i < j (neighbours) are joined.
inline bool joined(std::uint64_t i, std::uint64_t j) { return hash2(i, j) % 8 < 3; }

inline input_t input(const args& a) {
    require_default_variant(a);
    input_t in;
    const long k = static_cast<long>(pick<std::size_t>(a, 6, 40, 80));
    in.iterations = pick(a, 3u, 20u, 20u);
    in.rows = static_cast<std::size_t>(k * k * k);
    in.row_ptr.push_back(0);
    std::uint64_t g = 53;
    for (long z = 0; z < k; ++z)
        for (long y = 0; y < k; ++y)
            for (long x = 0; x < k; ++x) {
                const long i = x + k * (y + k * z);
                // neighbours in ascending node order: dz, then dy, then dx from -1 to 1
                for (long dz = -1; dz <= 1; ++dz)
                    for (long dy = -1; dy <= 1; ++dy)
                        for (long dx = -1; dx <= 1; ++dx) {
                            const long nx = x + dx, ny = y + dy, nz = z + dz;
                            if (nx < 0 || ny < 0 || nz < 0 || nx >= k || ny >= k || nz >= k)
                                continue;
                            const long j = nx + k * (ny + k * nz);
                            if (j != i && !joined(std::min(i, j), std::max(i, j))) continue;
                            in.col.push_back(static_cast<std::uint32_t>(j));
                            in.val.push_back(static_cast<double>(below(g, 17)) - 8.0);
                        }
                in.row_ptr.push_back(in.col.size());
            }
    in.v0.resize(in.rows);
    for (double& x : in.v0) x = static_cast<double>(below(g, 9)) - 4.0;
    return in;
}

// The iteration's checksum term and the next vector (serial, O(rows)).
inline std::uint64_t step_vector(const std::vector<double>& w, std::vector<double>& v) {
    std::uint64_t s = 0;
    for (std::size_t r = 0; r < w.size(); ++r) {
        const std::int64_t wr = static_cast<std::int64_t>(w[r]);
        s += static_cast<std::uint64_t>(wr) * (r + 1);
        v[r] = static_cast<double>((wr % 9 + 9) % 9 - 4);
    }
    return s;
}

template <class S>
std::uint64_t iterate(const input_t& in, std::vector<double>& v, std::vector<double>& w) {
    std::uint64_t sum = 0;
    for (unsigned t = 0; t < in.iterations; ++t) {
        S::flat_for(std::size_t{0}, opaque(in.rows), [&](std::size_t r) {
            const std::size_t lo = in.row_ptr[r], len = in.row_ptr[r + 1] - lo;
            temp_array<S, double> products(len);
            double* const p = products.data();
            S::parallel_for(std::size_t{0}, len, [&](std::size_t e) {
                p[e] = in.val[lo + e] * v[in.col[lo + e]];
            });
            w[r] = S::parallel_reduce(
                std::size_t{0}, len, 0.0, [&](std::size_t e) -> double { return p[e]; },
                [](double x, double y) -> double { return x + y; });
        });
        sum += step_vector(w, v);
    }
    return sum;
}

inline std::uint64_t oracle(const input_t& in) {
    std::vector<double> v = in.v0, w(in.rows);
    std::uint64_t sum = 0;
    for (unsigned t = 0; t < in.iterations; ++t) {
        for (std::size_t r = 0; r < in.rows; ++r) {
            double s = 0.0;
            for (std::size_t e = in.row_ptr[r]; e < in.row_ptr[r + 1]; ++e)
                s += in.val[e] * v[in.col[e]];
            w[r] = s;
        }
        sum += step_vector(w, v);
    }
    return sum;
}

template <class S>
output run(const args& a) {
    const input_t in = input(a);
    std::vector<double> v, w(in.rows);
    auto t = measure(
        a, [&] { v = in.v0; },
        [&] { return S::run_loops([&] { return iterate<S>(in, v, w); }); });
    return result(t.time_s, t.result, oracle(in));
}

}  // namespace bench::meshspmv
