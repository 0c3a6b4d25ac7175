// bench/strassen: Strassen's matrix multiply (NAR §4 "Str MM": seven recursive calls, each forked,
// the parallel recursion ending at 64 x 64 where the serial product runs).  C = A·B on the input
// of bench/common/dense.hpp (the same matrices as mmtemp, so the same checksum at the same n).
// Above the leaf a call allocates the seven products M1..M7 (each (n/2)^2) and forks them as a
// join tree; branch i allocates its own operand sums (at most two (n/2)^2 temporaries, filled by
// parallel loops over rows), recurses, and frees them; after the join the quadrants of C are
// combined from M (a parallel loop over rows) and M is freed.  Every temporary goes through the
// system's allocator (weft: weft::malloc).  Unlike NAR's version, C is a separate output matrix
// (NAR stored the result into an input), so the inputs stay intact for the repetitions.
//   M1 = (A11 + A22)(B11 + B22)   M2 = (A21 + A22) B11   M3 = A11 (B12 - B22)
//   M4 = A22 (B21 - B11)          M5 = (A11 + A12) B22   M6 = (A21 - A11)(B11 + B12)
//   M7 = (A12 - A22)(B21 + B22)
//   C11 = M1 + M4 - M5 + M7   C12 = M3 + M5   C21 = M2 + M4   C22 = M1 - M2 + M3 + M6
// The entries are small integers, so every value is exact in doubles (|values| < 2^53).
// Sizes n = 128 / 512 / 1024.  Checksum: bench::dense::checksum; oracle: the plain i-k-j product.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../common/bench.hpp"
#include "../common/dense.hpp"
#include "../common/temp.hpp"

namespace bench::strassen {

using dense::view;

// One operand of a product: the quadrant x itself (sign 0), or x + sign * y in a temporary.
struct operand_spec {
    int xr, xc;   // quadrant of x
    int sign;     // 0: x alone; +1 / -1: x + sign * y
    int yr, yc;   // quadrant of y (when sign != 0)
};

// The operands of M1..M7 (A side, B side), Strassen's table above.
constexpr operand_spec a_ops[7] = {{0, 0, 1, 1, 1}, {1, 0, 1, 1, 1}, {0, 0, 0, 0, 0},
                                   {1, 1, 0, 0, 0}, {0, 0, 1, 0, 1}, {1, 0, -1, 0, 0},
                                   {0, 1, -1, 1, 1}};
constexpr operand_spec b_ops[7] = {{0, 0, 1, 1, 1}, {0, 0, 0, 0, 0}, {0, 1, -1, 1, 1},
                                   {1, 0, -1, 0, 0}, {1, 1, 0, 0, 0}, {0, 0, 1, 0, 1},
                                   {1, 0, 1, 1, 1}};

// The view of one operand of side h: the quadrant of m itself, or the sum written into buf.
template <class S>
view operand(view m, std::size_t h, const operand_spec& o, temp_array<S, double>& buf) {
    const view x = m.quad(h, o.xr, o.xc);
    if (o.sign == 0) return x;
    const view y = m.quad(h, o.yr, o.yc);
    const double sign = o.sign;
    double* out = buf.data();
    S::parallel_for(std::size_t{0}, h, [&, x, y, out](std::size_t r) {
        const double* __restrict xr = x.p + r * x.ld;
        const double* __restrict yr = y.p + r * y.ld;
        double* __restrict o_r = out + r * h;
        for (std::size_t c = 0; c < h; ++c) o_r[c] = xr[c] + sign * yr[c];
    });
    return {out, h};
}

// C = A·B (overwriting C), n a power of two times the leaf size.
template <class S>
void multiply(view a, view b, view c, std::size_t n) {
    if (n <= dense::leaf_size) {
        dense::leaf_product(a, b, c, n);
        return;
    }
    const std::size_t h = n / 2, hh = h * h;
    temp_array<S, double> m(7 * hh);
    double* const mp = m.data();
    fork_each<S>(0, 7, [&](std::size_t i) {
        temp_array<S, double> xa(a_ops[i].sign ? hh : 0), xb(b_ops[i].sign ? hh : 0);
        const view x = operand<S>(a, h, a_ops[i], xa);
        const view y = operand<S>(b, h, b_ops[i], xb);
        multiply<S>(x, y, {mp + i * hh, h}, h);
    });
    S::parallel_for(std::size_t{0}, h, [&](std::size_t r) {
        const double* m1 = mp + r * h;
        const double *m2 = m1 + hh, *m3 = m2 + hh, *m4 = m3 + hh, *m5 = m4 + hh, *m6 = m5 + hh,
                     *m7 = m6 + hh;
        double* c11 = c.p + r * c.ld;
        double* c12 = c11 + h;
        double* c21 = c.p + (r + h) * c.ld;
        double* c22 = c21 + h;
        for (std::size_t k = 0; k < h; ++k) {
            c11[k] = m1[k] + m4[k] - m5[k] + m7[k];
            c12[k] = m3[k] + m5[k];
            c21[k] = m2[k] + m4[k];
            c22[k] = m1[k] - m2[k] + m3[k] + m6[k];
        }
    });
}

template <class S>
output run(const args& a) {
    return dense::run_product<S>(a, [](view x, view y, view z, std::size_t n) { multiply<S>(x, y, z, n); });
}

}  // namespace bench::strassen
