// bench/fft: the recursive radix-2 FFT (Cooley-Tukey decimation in time, as in CLRS's
// RECURSIVE-FFT): a transform of size n > 1 copies its even- and odd-indexed elements into a
// temporary of n elements (a parallel loop), transforms both halves (a join), and combines them
// into its own array with the butterflies X[k] = E[k] + w^k O[k], X[k + n/2] = E[k] - w^k O[k]
// (a parallel loop), then frees the temporary.  The base case is n = 1 (no cutoff).  NAR §5.4
// ran FFTW's threaded Cooley-Tukey, which forks a thread per recursive transform; here every
// recursive transform is a join and every temporary goes through the system's allocator (weft:
// weft::malloc), S1 = 2N complex values along one path of the recursion.
//
// Input (seed 47): N complex values, re = below(g, 16) - 8 then im = below(g, 16) - 8 per
// element.  Twiddles: w_N^k = (cos(-2 pi k / N), sin(-2 pi k / N)) for k < N/2, a table computed
// with the input (untimed); the level of size n uses w_N^(k N / n).  N = 2^10 / 2^19 / 2^22
// (NAR's 2^22 at full).
//
// Checksum: the wrapping sum over k of llround(16 re_k) * (2k + 1) + llround(16 im_k) * (2k + 2)
// (as uint64).  The oracle is the iterative in-place radix-2 FFT (bit reversal, then stages of
// butterflies with the same twiddle table): it performs the same floating-point operations on
// the same values, so its result has the same bits.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <utility>
#include <vector>

#include "../common/bench.hpp"
#include "../common/temp.hpp"

namespace bench::fft {

// A complex number (a plain struct: the arithmetic is written out below, the same in the
// recursion and the oracle).
struct cplx {
    double re, im;
};

struct input_t {
    std::size_t n = 0;            // a power of two
    std::vector<cplx> x;          // the signal
    std::vector<cplx> twiddle;    // w_N^k, k < N/2
};

inline input_t input(const args& a) {
    require_default_variant(a);
    input_t in;
    in.n = std::size_t{1} << pick(a, 10u, 19u, 22u);
    in.x.resize(in.n);
    std::uint64_t g = 47;
    for (cplx& v : in.x) {
        v.re = static_cast<double>(below(g, 16)) - 8.0;
        v.im = static_cast<double>(below(g, 16)) - 8.0;
    }
    in.twiddle.resize(in.n / 2);
    for (std::size_t k = 0; k < in.n / 2; ++k) {
        const double angle = -2.0 * std::numbers::pi * static_cast<double>(k) /
                             static_cast<double>(in.n);
        in.twiddle[k] = {std::cos(angle), std::sin(angle)};
    }
    return in;
}

// The butterfly of e and o with twiddle w: (e + w o, e - w o).
inline void butterfly(cplx e, cplx o, cplx w, cplx& lo, cplx& hi) {
    const double tr = w.re * o.re - w.im * o.im;
    const double ti = w.re * o.im + w.im * o.re;
    lo = {e.re + tr, e.im + ti};
    hi = {e.re - tr, e.im - ti};
}

// Transforms x[0..n) in place; tw_step = N / n (the twiddle table's stride at this level).
template <class S>
void transform(const input_t& in, cplx* x, std::size_t n, std::size_t tw_step) {
    if (n == 1) return;
    const std::size_t h = n / 2;
    temp_array<S, cplx> buf(n);
    cplx* const even = buf.data();
    cplx* const odd = even + h;
    S::parallel_for(std::size_t{0}, h, [=](std::size_t k) {
        even[k] = x[2 * k];
        odd[k] = x[2 * k + 1];
    });
    S::join([&] { transform<S>(in, even, h, 2 * tw_step); },
            [&] { transform<S>(in, odd, h, 2 * tw_step); });
    const cplx* const tw = in.twiddle.data();
    S::parallel_for(std::size_t{0}, h, [=](std::size_t k) {
        butterfly(even[k], odd[k], tw[k * tw_step], x[k], x[k + h]);
    });
}

inline std::uint64_t checksum(const std::vector<cplx>& x) {
    std::uint64_t s = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
        s += static_cast<std::uint64_t>(std::llround(16.0 * x[k].re)) * (2 * k + 1);
        s += static_cast<std::uint64_t>(std::llround(16.0 * x[k].im)) * (2 * k + 2);
    }
    return s;
}

// The iterative radix-2 FFT: bit-reversal permutation, then log2 N stages of butterflies.
inline std::uint64_t oracle(const input_t& in) {
    std::vector<cplx> x = in.x;
    const std::size_t n = in.n;
    for (std::size_t i = 1, j = 0; i < n; ++i) {
        std::size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
        if (i < j) std::swap(x[i], x[j]);
    }
    for (std::size_t len = 2; len <= n; len *= 2) {
        const std::size_t h = len / 2, step = n / len;
        for (std::size_t base = 0; base < n; base += len)
            for (std::size_t k = 0; k < h; ++k)
                butterfly(x[base + k], x[base + k + h], in.twiddle[k * step], x[base + k],
                          x[base + k + h]);
    }
    return checksum(x);
}

template <class S>
output run(const args& a) {
    const input_t in = input(a);
    std::vector<cplx> x;
    auto t = measure(
        a, [&] { x = in.x; }, [&] { S::run_tasks([&] { transform<S>(in, x.data(), in.n, 1); }); },
        [&] { return checksum(x); });
    return result(t.time_s, t.result, oracle(in));
}

}  // namespace bench::fft
