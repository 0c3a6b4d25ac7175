// bench/fib: fib(n) = n < 2 ? n : fib(n-1) + fib(n-2), both calls a join, no cutoff.
// Sizes n = 15 / 30 / 40; the checksum is fib(n), the oracle its closed loop.
#pragma once

#include <cstdint>

#include "../common/bench.hpp"

namespace bench::fib {

inline unsigned input(const args& a) {
    require_default_variant(a);
    return pick(a, 15u, 30u, 40u);
}

// The serial elision.
inline std::uint64_t serial(unsigned n) {
    if (n < 2) return n;
    return serial(n - 1) + serial(n - 2);
}

// The oracle: the iterative Fibonacci number (fib(40) = 102334155).
inline std::uint64_t oracle(unsigned n) {
    std::uint64_t a = 0, b = 1;
    for (unsigned i = 0; i < n; ++i) {
        const std::uint64_t t = a + b;
        a = b;
        b = t;
    }
    return a;
}

}  // namespace bench::fib
