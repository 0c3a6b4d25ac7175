// bench/common/system_serial.hpp: the serial elision as a system adapter (bench/common/system.hpp).
// A join is its two calls in order, a loop a plain loop: a kernel instantiated with it IS the
// serial elision of the same source the parallel systems run (baseline Ts).
#pragma once

#include <utility>

#include "branch.hpp"

namespace bench {

struct serial_system {
    template <class F>
    BENCH_INLINE static auto run_tasks(F&& f) {
        return f();
    }
    template <class F>
    BENCH_INLINE static auto run_loops(F&& f) {
        return f();
    }

    template <class F, class G>
    BENCH_INLINE static std::pair<branch_result<F>, branch_result<G>> join(F&& f, G&& g) {
        branch_result<F> a = call_branch(f);
        // The join point: an empty volatile asm, which the compiler may neither drop nor merge,
        // so a pure recursive kernel (fib) keeps every call.  Without it GCC inlines the
        // recursion into itself and merges the repeated subcalls, fib(40) in under a
        // millisecond: work that no parallel system's join lets it skip.
        asm volatile("");
        branch_result<G> b = call_branch(g);
        return {std::move(a), std::move(b)};
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
