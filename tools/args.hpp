// The tools' numeric command-line arguments: one rule for every integer a tool takes — decimal
// digits (a leading '-' only where the range allows negatives), the whole text, within the range
// (std::atoi reads "abc" as 0 and "12x" as 12).  A bad one throws std::invalid_argument naming the
// argument; each tool's main reports it with its usage line and exits 2.  No weft inside: the
// tools that do not link the library use it too.
#pragma once

#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tools {

template <class T>
T number(std::string_view name, std::string_view text, T lo, T hi) {
  T v{};
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || v < lo || v > hi)
    throw std::invalid_argument(std::string(name) + " must be an integer in " + std::to_string(lo) + ".." +
                                std::to_string(hi) + ", got \"" + std::string(text) + "\"");
  return v;
}

// A decimal number (from_chars' general format: "0.25", "2e-3"), the whole text, within [lo, hi];
// no "nan" or "inf", which no range admits.
inline double decimal(std::string_view name, std::string_view text, double lo, double hi) {
  double v{};
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !(v >= lo && v <= hi)) {
    char range[64];
    std::snprintf(range, sizeof range, "%g..%g", lo, hi);
    throw std::invalid_argument(std::string(name) + " must be a number in " + range + ", got \"" + std::string(text) + "\"");
  }
  return v;
}

// The argument at argv[i] when the command line has one, else the default (optional trailing
// arguments, as `weft-tau [RUNS] [SMALL_N_US]` takes them).
template <class T>
T number_or(int argc, char** argv, int i, std::string_view name, T fallback, T lo, T hi) {
  return i < argc ? number(name, argv[i], lo, hi) : fallback;
}

// A tool's main: run(argc, argv), with a bad argument or pool setting (std::invalid_argument, a
// WEFT_* variable's included) reported as "PROG: why" and the usage line (exit 2), not a terminate.
inline int main_with_usage(const char* prog, int (*usage)(), int (*run)(int, char**), int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n", prog, e.what());
    return usage();
  }
}

}  // namespace tools
