// bench/fib: fib(n) = n < 2 ? n : fib(n-1) + fib(n-2), both calls a join, no cutoff.
// Sizes n = 15 / 37 / 40; the checksum is fib(n), the oracle its closed loop.
#pragma once

#include <cstdint>

#include "../common/bench.hpp"

namespace bench::fib {

inline unsigned input(const args& a) {
    require_default_variant(a);
    return pick(a, 15u, 37u, 40u);
}

// Declared inline, as README "Cheap joins" advises for a recursive function that joins: gcc then
// inlines the recursion into itself under its larger limit for inline functions, as it already does
// the elision's (whose time the keyword does not change).  The same source for every system.
template <class S>
inline std::uint64_t fib(unsigned n) {
    if (n < 2) return n;
    auto [x, y] = S::join([n]() noexcept { return fib<S>(n - 1); }, [n] { return fib<S>(n - 2); });
    return x + y;
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

// n passes through opaque() so that the compiler cannot merge the warm-up and the timed run of
// the serial elision (a pure recursive function).
template <class S>
output run(const args& a) {
    const unsigned n = input(a);
    auto t = measure(a, [&] { return S::run_tasks([&] { return fib<S>(opaque(n)); }); });
    return result(t.time_s, t.result, oracle(n));
}

}  // namespace bench::fib
