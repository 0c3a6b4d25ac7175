// bench/common/csr.hpp — the random CSR matrices of bench/spmv and bench/flat_spmv, generated
// once here (bench/rust/src/kernels/csr.rs generates the same numbers): row by row, the row's
// nonzero count nnz_of_row(g) (which may draw from the generator), then for each nonzero
// col = below(g, cols), value = below(g, 17) - 8 (as double); then, from the same generator,
// x[c] = below(g, 9) - 4 for c = 0 .. cols-1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bench.hpp"

namespace bench {

struct csr {
    std::vector<std::size_t> row_ptr;  // rows + 1
    std::vector<std::uint32_t> col;    // nnz
    std::vector<double> val;           // nnz
    std::vector<double> x;             // cols
};

template <class NnzOfRow>
csr random_csr(std::uint64_t& g, std::size_t rows, std::size_t cols, NnzOfRow nnz_of_row) {
    csr m;
    m.row_ptr.reserve(rows + 1);
    m.row_ptr.push_back(0);
    for (std::size_t r = 0; r < rows; ++r) {
        const std::uint64_t nnz = nnz_of_row(g);
        for (std::uint64_t e = 0; e < nnz; ++e) {
            m.col.push_back(static_cast<std::uint32_t>(below(g, cols)));
            m.val.push_back(static_cast<double>(static_cast<std::int64_t>(below(g, 17)) - 8));
        }
        m.row_ptr.push_back(m.col.size());
    }
    m.x.resize(cols);
    for (double& v : m.x) v = static_cast<double>(static_cast<std::int64_t>(below(g, 9)) - 4);
    return m;
}

// The checksum of both kernels: the wrapping sum of (int64)y[r] (computed in uint64: two's
// complement wrapping).
inline std::uint64_t rows_sum(const std::vector<double>& y) {
    std::uint64_t s = 0;
    for (double v : y) s += static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    return s;
}

}  // namespace bench
