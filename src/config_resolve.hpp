#pragma once
#include "weft/config.hpp"

namespace weft::detail {
inline constexpr unsigned max_workers = 1024;
policy default_policy() noexcept;
// Applies the environment to the fields left at their defaults, fills automatic values, and
// validates; throws std::invalid_argument naming the bad setting and the accepted values.
config resolve(const config& in);
}  // namespace weft::detail
