// weft — calling a branch: its result type (weft::unit for void) and the call that makes one.
#pragma once

#include <type_traits>
#include <utility>

#include "frame.hpp"

namespace weft {

// The result of a branch that returns void.
struct unit {
  friend constexpr bool operator==(unit, unit) noexcept { return true; }
};

namespace detail {

template <class F>
using ret_t = std::conditional_t<std::is_void_v<std::invoke_result_t<F&>>, unit,
                                 std::remove_cvref_t<std::invoke_result_t<F&>>>;

template <class F>
WEFT_INLINE ret_t<F> call(F& f) {
  using R = std::invoke_result_t<F&>;
  static_assert(!std::is_reference_v<R> || std::is_void_v<R> || std::is_constructible_v<ret_t<F>, R>,
                "weft: a join or parallel_invoke branch that returns a reference has its result copied into the "
                "results (they are values), and this type cannot be copied: return a pointer or std::ref(x)");
  if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
    f();
    return unit{};
  } else {
    return f();
  }
}

// join, parallel_invoke and spawn return their branches' results by value (a std::pair, a std::tuple,
// sync's value), and a thief's result is moved out of the frame it made it in: a result type must be
// move-constructible.  Checked where the user's call is, so that the error names the rule and not
// a std::pair constructor deep in the runtime's headers.
template <class F>
inline constexpr bool result_movable = std::is_move_constructible_v<ret_t<F>>;
#define WEFT_RESULT_MOVABLE_MESSAGE                                                                 \
  "weft: a join, parallel_invoke or spawn returns its branches' results by value, so each result " \
  "type must be move-constructible: return a std::unique_ptr to the object, or make it after the " \
  "join from what the branches return"

// A result a thief made in place, moved out and destroyed there on every way out (a throwing move
// included): a join's second branch (join.hpp), a stolen loop part's value (loop.hpp).
template <class R>
R take_and_destroy(R& r) {
  struct destroy {
    R& r;
    ~destroy() { r.~R(); }
  } d{r};
  return std::move(r);
}

}  // namespace detail
}  // namespace weft
