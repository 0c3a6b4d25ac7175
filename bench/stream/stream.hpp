// bench/stream (issue 10's flat loops): one multiply-add per element, y[i] += 0.25 * x[i] over
// n doubles, each sweep ONE flat parallel loop over the elements (a memory-bound loop the serial
// compiler vectorizes): tools/flat_loops.cpp's stream, with y accumulating so that every sweep's
// work reaches the checksum.
// Generation (seed 53): x[i] = below(g, 1000) (as double); y starts at 0.
// Sizes (n, sweeps) = (1000, 3) / (2^22, 25) / (2^24, 50).
// Checksum: the wrapping sum over i of (uint64)(4 * y[i]).  Every y[i] is a multiple of 0.25
// below 2^53 at every step (0.25 * x[i] is exact, and so is every sum), so y[i] = sweeps * x[i]
// / 4 exactly in any system and the oracle is the closed form sweeps * (sum of x[i]).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../common/bench.hpp"
#include "../common/schedule.hpp"

namespace bench::stream {

struct input_t {
    std::size_t n = 0;
    unsigned sweeps = 0;
    std::vector<double> x;
};

inline input_t input(const args& a) {
    input_t in;
    in.n = pick<std::size_t>(a, 1000, std::size_t{1} << 22, std::size_t{1} << 24);
    in.sweeps = pick(a, 3u, 25u, 50u);
    in.x.resize(in.n);
    std::uint64_t g = 53;
    for (double& v : in.x) v = static_cast<double>(below(g, 1000));
    return in;
}

inline std::uint64_t quarters_sum(const std::vector<double>& y) {
    std::uint64_t s = 0;
    for (double v : y) s += static_cast<std::uint64_t>(4.0 * v);
    return s;
}

// sweeps flat loops over the elements (OpenMP's `omp for`).
template <class S>
void sweeps(const input_t& in, std::vector<double>& y) {
    const double* x = in.x.data();
    double* yp = y.data();
    for (unsigned s = 0; s < in.sweeps; ++s)
        S::flat_for(std::size_t{0}, opaque(in.n), [=](std::size_t i) { yp[i] += 0.25 * x[i]; });
}

inline std::uint64_t oracle(const input_t& in) {
    std::uint64_t s = 0;
    for (double v : in.x) s += static_cast<std::uint64_t>(v);
    return s * in.sweeps;
}

template <class S>
output run(const args& a) {
    select_flat_schedule<S>(a);
    const input_t in = input(a);
    std::vector<double> y(in.n);
    auto t = measure(
        a, [&] { std::fill(y.begin(), y.end(), 0.0); },
        [&] { S::run_loops([&] { sweeps<S>(in, y); }); }, [&] { return quarters_sum(y); });
    return result(t.time_s, t.result, oracle(in));
}

}  // namespace bench::stream
