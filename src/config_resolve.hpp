#pragma once
#include <chrono>

#include "weft/config.hpp"

namespace weft::detail {
inline constexpr unsigned max_workers = 1024;
// The heartbeat period N when neither config.heartbeat nor WEFT_HEARTBEAT_US sets it (HB §5.1:
// N = 20 tau, tau = 2.1 us measured by build/tools/weft-tau; see docs/results/adaptive.md).
inline constexpr std::chrono::microseconds default_heartbeat{40};
policy default_policy() noexcept;
// Applies the environment to the fields left at their defaults, fills automatic values, and
// validates; throws std::invalid_argument naming the bad setting and the accepted values.
config resolve(const config& in);
}  // namespace weft::detail
