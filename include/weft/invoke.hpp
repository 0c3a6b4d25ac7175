// weft — parallel_invoke (SPEC §2): any number of branches as a balanced tree of joins.
//
//   auto [a, b, c] = weft::parallel_invoke(f, g, h);
//
// n branches make n - 1 joins, nested ceil(log2 n) deep: the first half of the arguments is the
// first branch of the root join (run on this worker), the second half its latent second branch,
// and so on down to single callables.  A chain of joins (f, then join(g, join(h, ...))) would also
// be correct, but its depth n puts the last branch n promotions away from a thief; the tree lets
// each promotion hand over half of what is left (the divide-and-conquer shape LS and HB assume).
//
// Semantics, all join's: results come back as a std::tuple in argument order, a void branch as
// weft::unit; every callable is called where it is (through a reference: an lvalue function object
// is the caller's object, never a copy); an exception leaves after every started branch has
// finished, and when several branches throw the serially first one's wins (join keeps its first
// branch's exception over its second's at every level, so the leftmost thrower's survives).
#pragma once

#include <concepts>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "detail/join.hpp"
#include "pool.hpp"

namespace weft {

namespace detail {

template <std::size_t Lo, std::size_t Hi, class Refs>
auto invoke_span(Refs& fs);

// A branch of the tree: the callables [Lo, Hi) of `fs`.  One callable is a call of the program;
// a node of two or more is the tree's own, and the work/span mode's `calls` unit does not count it
// (detail::measured_as_call): parallel_invoke(f, g, h) is f, g and h, three calls, span one call
// (it counted five calls, span two, before stop 43's bug hunt).  The size and copy of a lambda
// capturing `fs` by reference.
template <std::size_t Lo, std::size_t Hi, class Refs>
struct invoke_node {
  static constexpr bool measured_as_call = Hi - Lo == 1;
  Refs* fs;
  auto operator()() const { return invoke_span<Lo, Hi>(*fs); }
};

// The results of the callables [Lo, Hi) of `fs` (a tuple of references), as one tuple.
template <std::size_t Lo, std::size_t Hi, class Refs>
auto invoke_span(Refs& fs) {
  if constexpr (Hi - Lo == 1) {
    using F = std::remove_reference_t<std::tuple_element_t<Lo, Refs>>;
    return std::tuple<ret_t<F>>(call<F>(std::get<Lo>(fs)));
  } else {
    constexpr std::size_t mid = Lo + (Hi - Lo + 1) / 2;  // the first half takes the odd one out
    auto [left, right] = weft::join(invoke_node<Lo, mid, Refs>{&fs}, invoke_node<mid, Hi, Refs>{&fs});
    return std::tuple_cat(std::move(left), std::move(right));
  }
}

}  // namespace detail

// Runs f1(), ..., fn() as a balanced tree of joins; returns their results as a std::tuple.  Called
// from a thread that is no worker, it runs in the global pool, as a join does: with two or more
// callables the root join takes it there; a single one (no join) is sent there here.  With none it
// returns an empty tuple and touches no pool (a variadic caller's empty pack: nothing to run).
template <class... F>
  requires(std::invocable<std::remove_reference_t<F>&> && ...)
auto parallel_invoke(F&&... fs) {
  static_assert((detail::result_movable<std::remove_reference_t<F>> && ...), WEFT_RESULT_MOVABLE_MESSAGE);
  if constexpr (sizeof...(F) == 0) {
    return std::tuple<>{};
  } else {
    std::tuple<F&&...> refs(std::forward<F>(fs)...);
    if constexpr (sizeof...(F) == 1) {
      // One callable is no join, but still a call of the program: the work/span mode counts it as
      // it counts a join's branch or a one-iteration loop (parallel_invoke(f) measured no call,
      // parallel_invoke(f, g) two, before stop 47's seeing-inside hunt).
      // And a branch of its own, which forks nothing and pushes no frame: a scope spawn inside it
      // runs at once, measured so (call_unforked).
      const auto one = [&refs] {
        detail::hot_state& h = detail::tls_hot;
        if (h.poll.load(std::memory_order_relaxed) & detail::poll_bit::measure) [[unlikely]] detail::measure_call(h);
        return detail::call_unforked(h, [&refs] { return detail::invoke_span<0, 1>(refs); });
      };
      if (detail::tls_hot.self == nullptr) return pool::global().run(one);
      return one();
    } else {
      return detail::invoke_span<0, sizeof...(F)>(refs);
    }
  }
}

}  // namespace weft
