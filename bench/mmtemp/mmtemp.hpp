// bench/mmtemp: NAR's blocked recursive matrix multiply with a temporary per level (NAR Fig 1.1,
// §4 "Rec MM", the program of Figs 1.2, 4.4 and 7.7).  C = A·B for n x n doubles (the input of
// bench/common/dense.hpp, seed 37): above the 64 x 64 leaf, a call allocates a temporary T of
// n x n, forks its eight quadrant products (C11 = A11·B11, C12 = A11·B12, C21 = A21·B11,
// C22 = A21·B12 into C; A12·B21, A12·B22, A22·B21, A22·B22 into T's quadrants) as a join tree,
// joins them, adds T into C (a parallel loop over rows) and frees T.  The temporary goes through
// the system's allocator (weft: weft::malloc), so its high-water mark is what the scheduler makes
// of the temporaries that are live at once: S1 = n^2 (1 + 1/4 + 1/16 + ...) doubles serially.
// Sizes n = 128 / 512 / 1024 (NAR's 1024 x 1024 at full).
// Checksum: bench::dense::checksum of C; the oracle is the plain i-k-j product.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../common/bench.hpp"
#include "../common/dense.hpp"
#include "../common/temp.hpp"

namespace bench::mmtemp {

using dense::view;

// C = A·B (overwriting C), n a power of two times the leaf size.
template <class S>
void multiply(view a, view b, view c, std::size_t n) {
    if (n <= dense::leaf_size) {
        dense::leaf_product(a, b, c, n);
        return;
    }
    const std::size_t h = n / 2;
    temp_array<S, double> tmp(n * n);
    const view t{tmp.data(), n};
    // Product q = 4k + 2i + j (Fig 1.1's eight forks): C_ij (k = 0) or T_ij (k = 1) = A_ik·B_kj.
    fork_each<S>(0, 8, [&](std::size_t q) {
        const std::size_t i = (q >> 1) & 1, j = q & 1, k = q >> 2;
        multiply<S>(a.quad(h, i, k), b.quad(h, k, j), (k == 0 ? c : t).quad(h, i, j), h);
    });
    S::parallel_for(std::size_t{0}, n, [&](std::size_t r) {
        double* __restrict cr = c.p + r * c.ld;
        const double* __restrict tr = t.p + r * t.ld;
        for (std::size_t col = 0; col < n; ++col) cr[col] += tr[col];
    });
}

template <class S>
output run(const args& a) {
    return dense::run_product<S>(a, [](view x, view y, view z, std::size_t n) { multiply<S>(x, y, z, n); });
}

}  // namespace bench::mmtemp
