// bench/common/system_serial.hpp: the serial elision as a system adapter (bench/common/system.hpp).
// A join is its two calls in order, a loop a plain loop: a kernel instantiated with it IS the
// serial elision of the same source the parallel systems run (baseline Ts).
#pragma once

#include <type_traits>
#include <memory>
#include <utility>

#include "branch.hpp"

namespace bench {

// The two calls of a join, f first, for branches that return values.  `flatten` inlines the
// branches (the kernel's lambdas) into this body before the compiler's early passes look at the
// recursion, which lets GCC compile fib<serial_system> into the same loop-and-call shape as a
// hand-written `fib(n - 1) + fib(n - 2)`.  Without it GCC keeps the lambdas out of line at
// first, later inlines the recursion into itself and merges the repeated pure subcalls: fib(40)
// in under a millisecond, work that no parallel system's join lets it skip.  (An empty volatile
// asm between the calls also prevents the merge, but costs serial fib 15-30%.)
template <class F, class G>
__attribute__((flatten)) inline std::pair<branch_result<F>, branch_result<G>> both_in_order(F& f,
                                                                                          G& g) {
    branch_result<F> a = call_branch(f);
    branch_result<G> b = call_branch(g);
    return {std::move(a), std::move(b)};
}

template <class F, class G>
inline std::pair<no_result, no_result> void_in_order(F& f, G& g) {
    f();
    g();
    return {};
}

struct serial_system {
    // Temporaries (bench/common/temp.hpp): plain operator new, the serial program's own heap.
    template <class T>
    using allocator = std::allocator<T>;

    template <class F>
    BENCH_INLINE static auto run_tasks(F&& f) {
        return f();
    }
    template <class F>
    BENCH_INLINE static auto run_loops(F&& f) {
        return f();
    }

    // Branches that return nothing write memory, so no call of theirs can be merged; they stay
    // plain calls (flattening mergesort's sort would inline the whole merge into it: 30% more
    // instructions than the hand-written serial sort).
    template <class F, class G>
    BENCH_INLINE static std::pair<branch_result<F>, branch_result<G>> join(F&& f, G&& g) {
        if constexpr (std::is_void_v<std::invoke_result_t<F&>> &&
                      std::is_void_v<std::invoke_result_t<G&>>) {
            return void_in_order(f, g);
        } else {
            return both_in_order(f, g);
        }
    }
    template <class I, class Body>
    BENCH_INLINE static void parallel_for(I lo, I hi, Body&& body) {
        for (I i = lo; i < hi; ++i) body(i);
    }
    template <class I, class Body>
    BENCH_INLINE static void flat_for(I lo, I hi, Body&& body) {
        for (I i = lo; i < hi; ++i) body(i);
    }

    template <class I, class T, class Map, class Combine>
    BENCH_INLINE static T parallel_reduce(I lo, I hi, T init, Map&& map, Combine&& combine) {
        for (I i = lo; i < hi; ++i) init = combine(init, map(i));
        return init;
    }
};

}  // namespace bench
