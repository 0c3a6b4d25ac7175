// bench/stencil (issue 10's flat loops): Jacobi sweeps of a 2-D 5-point stencil over a
// side x side grid of doubles, each sweep ONE flat parallel loop over the interior rows (a row's
// cells a serial inner loop, vectorized where the serial loop is): tools/flat_loops.cpp's
// stencil, with the suite's generator.
// Generation (seed 47): cell i (row-major) = below(g, 1024) / 1024.
// A sweep writes every interior cell of `out` from `in`:
//   out[r][c] = 0.2 * (in[r][c] + in[r][c-1] + in[r][c+1] + in[r-1][c] + in[r+1][c])
// added in exactly that order (so every system and language rounds alike; no multiply-add to
// contract), then in and out swap; both grids start as the input (the boundary never changes).
// Sizes (side, sweeps) = (16, 3) / (2048, 12) / (4096, 24).
// Checksum: the wrapping sum of the IEEE-754 bit patterns of the grid the last sweep wrote;
// the oracle is the serial sweeps, untimed.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "../common/bench.hpp"
#include "../common/schedule.hpp"

namespace bench::stencil {

struct input_t {
    std::size_t side = 0;
    unsigned sweeps = 0;
    std::vector<double> grid;  // side * side, row-major
};

inline input_t input(const args& a) {
    input_t in;
    in.side = pick<std::size_t>(a, 16, 2048, 4096);
    in.sweeps = pick(a, 3u, 12u, 24u);
    in.grid.resize(in.side * in.side);
    std::uint64_t g = 47;
    for (double& v : in.grid) v = static_cast<double>(below(g, 1024)) / 1024.0;
    return in;
}

// Interior row r (1 .. side-2) of out from in.
inline void sweep_row(const double* in, double* out, std::size_t side, std::size_t r) {
    const std::size_t row = r * side;
    for (std::size_t c = 1; c + 1 < side; ++c)
        out[row + c] = 0.2 * (in[row + c] + in[row + c - 1] + in[row + c + 1] +
                              in[row + c - side] + in[row + c + side]);
}

inline std::uint64_t bits_sum(const std::vector<double>& grid) {
    std::uint64_t s = 0;
    for (double v : grid) s += std::bit_cast<std::uint64_t>(v);
    return s;
}

// sweeps flat loops over the interior rows (OpenMP's `omp for`); returns the grid written last.
template <class S>
std::vector<double>& sweeps(const input_t& in, std::vector<double>& a, std::vector<double>& b) {
    std::vector<double>* src = &a;
    std::vector<double>* dst = &b;
    const std::size_t side = in.side;
    for (unsigned s = 0; s < in.sweeps; ++s) {
        const double* ip = src->data();
        double* op = dst->data();
        S::flat_for(std::size_t{1}, opaque(side - 1),
                    [=](std::size_t r) { sweep_row(ip, op, side, r); });
        std::swap(src, dst);
    }
    return *src;
}

inline std::uint64_t oracle(const input_t& in) {
    std::vector<double> a = in.grid, b = in.grid;
    for (unsigned s = 0; s < in.sweeps; ++s) {
        for (std::size_t r = 1; r + 1 < in.side; ++r) sweep_row(a.data(), b.data(), in.side, r);
        std::swap(a, b);
    }
    return bits_sum(a);
}

template <class S>
output run(const args& a) {
    select_flat_schedule<S>(a);
    const input_t in = input(a);
    std::vector<double> g0, g1;
    const std::vector<double>* out = nullptr;
    auto t = measure(
        a, [&] { g0 = in.grid, g1 = in.grid; },
        [&] { S::run_loops([&] { out = &sweeps<S>(in, g0, g1); }); },
        [&] { return bits_sum(*out); });
    return result(t.time_s, t.result, oracle(in));
}

}  // namespace bench::stencil
