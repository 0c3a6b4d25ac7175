// bench/common/branch.hpp: what the system adapters share about a join's branches: the result of
// a branch (an empty placeholder for void, so that join always returns a pair) and its call.
#pragma once

#include <type_traits>
#include <utility>

// Adapter primitives sit on the hot path of every kernel: inlined into the kernel, they leave the
// code a hand-written variant would have (the serial elision must stay the serial elision).
#define BENCH_INLINE inline __attribute__((always_inline))

namespace bench {

// The result of a branch that returns void.
struct no_result {};

template <class F>
using branch_result = std::conditional_t<std::is_void_v<std::invoke_result_t<F&>>, no_result,
                                         std::remove_cvref_t<std::invoke_result_t<F&>>>;

template <class F>
BENCH_INLINE branch_result<F> call_branch(F& f) {
    if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
        f();
        return no_result{};
    } else {
        return f();
    }
}

}  // namespace bench
