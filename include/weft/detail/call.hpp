// weft — calling a branch: its result type (weft::unit for void) and the call that makes one.
#pragma once

#include <type_traits>

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
  if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
    f();
    return unit{};
  } else {
    return f();
  }
}

}  // namespace detail
}  // namespace weft
