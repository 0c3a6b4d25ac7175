// weft — the environment variables the runtime reads, as one list.  config.cpp reads the
// environment only through env(), whose argument must name one of these (checked at compile time),
// so a new setting cannot be read without being listed here.  The list also serves the check for
// misspelled variables (config.cpp, warn_misspelled_env: a WEFT_* variable that is not a setting
// but is close to one gets a line on stderr, once per process per name) and the tests' clean
// environment (tests/common.hpp, clean_env).
#pragma once

#include <string_view>

namespace weft::detail {

inline constexpr std::string_view env_settings[] = {
    "WEFT_WORKERS",          "WEFT_POLICY",           "WEFT_HEARTBEAT_US",      "WEFT_HEARTBEAT_DELIVERY",
    "WEFT_QUOTA",            "WEFT_TRACE",            "WEFT_TRACE_EVENTS",      "WEFT_MAX_DEPTH",
    "WEFT_STACK_BYTES",      "WEFT_FIBER_STACK_BYTES", "WEFT_WORK_SPAN",        "WEFT_WORK_SPAN_BURDEN",
    "WEFT_STEAL_BACKOFF_US", "WEFT_FIBER_FORK_LIMIT",
};

constexpr bool is_env_setting(std::string_view name) noexcept {
  for (std::string_view s : env_settings)
    if (s == name) return true;
  return false;
}

// The setting that the variable `name` probably meant, or empty: for a name beginning with WEFT in
// any case (weft_policy, WEFTPOLICY) that is not a setting but within Damerau-Levenshtein distance 2
// of one (letter case aside), or that a setting is a prefix of (WEFT_TRACE_FILE), or that is a
// prefix of a setting and names at least 3 letters after WEFT_ (WEFT_HEARTBEAT).  Empty for the
// settings themselves and for names far from all of them (WEFT_TEST_SCALE, WEFT_BENCH_RECORD: the
// test harness's and the benchmarks' own).
std::string_view env_setting_near(std::string_view name) noexcept;

// Forgets which names have been warned about, so that the next pool warns again (tests only; not
// while another thread makes a pool).
void forget_env_warnings() noexcept;

}  // namespace weft::detail
