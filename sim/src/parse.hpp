// Reading numbers from the command line and DAG files: one rule for every integer the simulator
// takes — decimal digits only, the whole text (no sign, space, point or exponent: std::stoull and
// istream read "-1" as 2^64 - 1 and "12x" as 12).  Each caller names its own setting in its error.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

namespace weft_sim {

inline std::optional<std::uint64_t> whole_uint(std::string_view s) noexcept {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace weft_sim
