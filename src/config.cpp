// weft — policy names, configuration from fields and environment, validation (SPEC §2).  Every
// fact about a policy (its name, whether it is implemented, the settings it accepts) comes from its
// row in weft/detail/policy_table.hpp.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "config_resolve.hpp"
#include "trace.hpp"
#include "weft/config.hpp"
#include "weft/detail/env_settings.hpp"
#include "weft/detail/policy_table.hpp"

extern char** environ;

namespace weft {

namespace {

using detail::policy_table;
using detail::traits_of;

// The names of the rows that `keep` selects: "a, b, c", or with `last_and` "a, b and c".
template <class Keep>
std::string names_where(Keep keep, bool last_and = false) {
  std::vector<std::string_view> names;
  for (const auto& row : policy_table)
    if (keep(row)) names.push_back(row.name);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += (last_and && i + 1 == names.size()) ? " and " : ", ";
    out += names[i];
  }
  return out;
}

std::string accepted_policies() {
  return names_where([](const detail::policy_traits&) { return true; });
}

std::string implemented_names() {
  return names_where([](const detail::policy_traits& row) { return row.implemented; });
}

// "heartbeat", "adf and dfd": the policies that accept a setting (policy_setting bit).
std::string policies_accepting(std::uint8_t setting) {
  return names_where([setting](const detail::policy_traits& row) { return (row.settings & setting) != 0; }, true);
}

// A decimal integer in [lo, hi], or an std::invalid_argument naming the setting and what it
// accepts (`also`: another accepted spelling, e.g. WEFT_QUOTA's "inf").
std::uint64_t parse_number(const char* setting, const std::string& text, std::uint64_t lo,
                           std::uint64_t hi, const char* also = nullptr) {
  const std::string accepted = "a decimal integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
                               (also != nullptr ? std::string(", or ") + also : std::string());
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument(std::string("weft: ") + setting + " = \"" + text + "\" is malformed; accepted: " + accepted);
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE || v < lo || v > hi)
    throw std::invalid_argument(std::string("weft: ") + setting + " = " + text + " is out of range; accepted: " + accepted);
  return v;
}

// A decimal number (digits, optionally a point and more digits) in [0, hi], or an
// std::invalid_argument naming the setting: config's double fields take fractions, and so does
// their variable (WEFT_WORK_SPAN_BURDEN=0.5 was refused as malformed before stop 43).
double parse_decimal(const char* setting, const std::string& text, double hi) {
  const std::string accepted = "a decimal number in 0.." + std::to_string(std::uint64_t(hi)) + " (e.g. 770 or 0.5)";
  const std::size_t point = text.find('.');
  const std::string whole = text.substr(0, point), fraction = point == std::string::npos ? "" : text.substr(point + 1);
  const auto digits = [](const std::string& t) { return !t.empty() && t.find_first_not_of("0123456789") == std::string::npos; };
  if (!digits(whole) || (point != std::string::npos && !digits(fraction)))
    throw std::invalid_argument(std::string("weft: ") + setting + " = \"" + text + "\" is malformed; accepted: " + accepted);
  double v = 0;  // from_chars: the point is '.' whatever the program's locale (strtod's is not)
  // Out of a double's range, from_chars leaves v as it was (0): past the largest double that read
  // a number beyond every limit as 0 (400 nines, stop 51's config hunt); below the smallest
  // subnormal it is a fraction that rounds to 0, and 0 is its value.
  const std::from_chars_result read = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool too_large = read.ec == std::errc::result_out_of_range && whole.find_first_not_of('0') != std::string::npos;
  if (too_large || !(v <= hi))
    throw std::invalid_argument(std::string("weft: ") + setting + " = " + text + " is out of range; accepted: " + accepted);
  return v;
}

// The name of a variable the runtime reads: one of env_settings (weft/detail/env_settings.hpp),
// checked at compile time, so that the check for misspelled variables knows every setting.
struct setting_name {
  const char* name;
  consteval setting_name(const char* n) : name(n) {
    if (!detail::is_env_setting(n)) throw "weft: a variable read from the environment must be listed in env_settings";
  }
};

const char* env(setting_name s) {
  const char* v = std::getenv(s.name);
  return v;  // an empty value counts as set (and is rejected as malformed)
}

}  // namespace

policy parse_policy(std::string_view name) {
  for (const auto& row : policy_table)
    if (row.name == name) return row.value;
  throw std::invalid_argument("weft: unknown policy \"" + std::string(name) +
                              "\"; accepted: " + accepted_policies());
}

std::string_view to_string(policy p) noexcept {
  const auto i = static_cast<std::size_t>(p);
  return i < detail::policy_count ? policy_table[i].name : "?";
}

std::vector<policy> implemented_policies() {
  std::vector<policy> out;
  for (const auto& row : policy_table)
    if (row.implemented) out.push_back(row.value);
  return out;
}

namespace detail {

// The one symbol of this build's _GLIBCXX_DEBUG mode that config.hpp has every file refer to.
#if defined(_GLIBCXX_DEBUG)
extern const char program_compiled_with_GLIBCXX_DEBUG_needs_libweft_built_with_it = 0;
#else
extern const char program_compiled_without_GLIBCXX_DEBUG_needs_libweft_built_without_it = 0;
#endif

// The policy that wins the benchmark suite: docs/results/adaptive.md has the evidence.
policy default_policy() noexcept { return policy::lazy_bf; }

namespace {

void resolve_policy(config& out) {
  // Parsed whether or not the field wins: a malformed value is refused, never silently ignored
  // (it was, under a field the program set, before stop 47).
  policy from_env = policy::automatic;
  if (const char* v = env("WEFT_POLICY")) {
    try {
      from_env = parse_policy(v);
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument("weft: WEFT_POLICY = \"" + std::string(v) +
                                  "\" is not a policy; accepted: " + accepted_policies());
    }
  }
  if (out.policy == policy::automatic) out.policy = from_env;
  if (out.policy == policy::automatic) out.policy = default_policy();
  // A value outside the enumeration (a cast from an integer) names no row of the policy table.
  if (static_cast<std::size_t>(out.policy) >= detail::policy_count)
    throw std::invalid_argument("weft: config.policy = " + std::to_string(static_cast<long long>(out.policy)) +
                                " is not a policy; accepted: " + accepted_policies());
  if (!traits_of(out.policy).implemented)
    throw std::invalid_argument("weft: policy \"" + std::string(to_string(out.policy)) +
                                "\" is not implemented in this build yet; implemented: " + implemented_names());
}

// Workers from the field or WEFT_WORKERS (checked before the policy is known), then the automatic
// count once it is.
void resolve_workers_setting(config& out) {
  const char* v = env("WEFT_WORKERS");
  const unsigned from_env = v != nullptr ? unsigned(parse_number("WEFT_WORKERS", v, 1, max_workers)) : 0;
  if (out.workers == 0) {
    out.workers = from_env;
  } else if (out.workers > max_workers) {
    throw std::invalid_argument("weft: config.workers = " + std::to_string(out.workers) +
                                " is out of range; accepted: 1.." + std::to_string(max_workers) +
                                " (0 = automatic)");
  }
}

// `from_env`: the count came from WEFT_WORKERS, which the message then names (README: a variable a
// pool has no use for is an error naming the variable; it said "workers = 4", a field the program
// never set, before stop 46's docs hunt).
void resolve_worker_count(config& out, bool from_env) {
  const bool on_caller = traits_of(out.policy).runs_on == mechanism::caller;
  if (out.workers == 0) {
    if (on_caller) {
      out.workers = 1;
    } else {
      const unsigned hw = std::thread::hardware_concurrency();
      out.workers = hw == 0 ? 1 : (hw > max_workers ? max_workers : hw);
    }
  }
  if (on_caller && out.workers != 1)
    throw std::invalid_argument("weft: policy \"" + std::string(to_string(out.policy)) + "\" runs on the caller alone; " +
                                (from_env ? "WEFT_WORKERS = " : "config.workers = ") + std::to_string(out.workers) +
                                " is not accepted (use 1" + (from_env ? ", or unset it)" : " or 0)"));
}

// A setting given to a policy that has none of it.
[[noreturn]] void reject_setting(const std::string& what, policy p, const char* has_no, std::uint8_t setting) {
  throw std::invalid_argument("weft: " + what + " is set but policy \"" + std::string(to_string(p)) + "\" has no " +
                              has_no + "; accepted only with " + policies_accepting(setting));
}

void resolve_heartbeat(config& out) {
  const bool accepts = (traits_of(out.policy).settings & policy_setting::heartbeat_period) != 0;
  const char* v = env("WEFT_HEARTBEAT_US");
  const auto from_env = v != nullptr ? parse_number("WEFT_HEARTBEAT_US", v, 1, 100000000) : 0;
  if (out.heartbeat.count() == 0) {
    if (v != nullptr) {
      out.heartbeat = std::chrono::microseconds(from_env);
      if (!accepts) reject_setting("WEFT_HEARTBEAT_US", out.policy, "heartbeat", policy_setting::heartbeat_period);
    }
  } else {
    if (out.heartbeat.count() < 1 || out.heartbeat.count() > 100000000)
      throw std::invalid_argument("weft: config.heartbeat = " + std::to_string(out.heartbeat.count()) +
                                  " us is out of range; accepted: 1..100000000 us (0 = default)");
    if (!accepts) reject_setting("config.heartbeat", out.policy, "heartbeat", policy_setting::heartbeat_period);
  }
  if (accepts && out.heartbeat.count() == 0) out.heartbeat = default_heartbeat;
}

// Who delivers the beats (heartbeat.cpp: spare capacity, or the timer thread alone; beat_signal.cpp:
// per-worker timers).
void resolve_heartbeat_delivery(config& out) {
  const bool accepts = (traits_of(out.policy).settings & policy_setting::heartbeat_period) != 0;
  const std::string accepted = "; accepted: spare, thread, signal";
  heartbeat_delivery from_env = heartbeat_delivery::automatic;
  if (const char* v = env("WEFT_HEARTBEAT_DELIVERY")) {
    const std::string s(v);
    if (s == "spare") from_env = heartbeat_delivery::spare;
    else if (s == "thread") from_env = heartbeat_delivery::thread;
    else if (s == "signal") from_env = heartbeat_delivery::signal;
    else throw std::invalid_argument("weft: WEFT_HEARTBEAT_DELIVERY = \"" + s + "\" is not a delivery" + accepted);
  }
  if (out.heartbeat_delivery == heartbeat_delivery::automatic) {
    if (from_env != heartbeat_delivery::automatic) {
      out.heartbeat_delivery = from_env;
      if (!accepts) reject_setting("WEFT_HEARTBEAT_DELIVERY", out.policy, "heartbeat", policy_setting::heartbeat_period);
    }
  } else {
    if (out.heartbeat_delivery != heartbeat_delivery::spare && out.heartbeat_delivery != heartbeat_delivery::thread &&
        out.heartbeat_delivery != heartbeat_delivery::signal)
      throw std::invalid_argument("weft: config.heartbeat_delivery is not a delivery" + accepted +
                                  " (heartbeat_delivery::automatic = default)");
    if (!accepts) reject_setting("config.heartbeat_delivery", out.policy, "heartbeat", policy_setting::heartbeat_period);
  }
  if (accepts && out.heartbeat_delivery == heartbeat_delivery::automatic) out.heartbeat_delivery = heartbeat_delivery::spare;
}

void resolve_quota(config& out) {
  const bool accepts = (traits_of(out.policy).settings & policy_setting::quota) != 0;
  const char* v = env("WEFT_QUOTA");
  const std::size_t from_env =
      v == nullptr ? 0
      : std::string(v) == "inf" ? unlimited_quota
                                : std::size_t(parse_number("WEFT_QUOTA", v, 1, max_finite_quota, "\"inf\""));
  if (out.quota_bytes == 0) {
    if (v != nullptr) {
      out.quota_bytes = from_env;
      if (!accepts) reject_setting("WEFT_QUOTA", out.policy, "memory quota", policy_setting::quota);
    }
  } else {
    if (out.quota_bytes > max_finite_quota && out.quota_bytes != unlimited_quota)
      throw std::invalid_argument("weft: config.quota_bytes = " + std::to_string(out.quota_bytes) +
                                  " is out of range; accepted: 1.." + std::to_string(max_finite_quota) +
                                  ", weft::unlimited_quota, or 0 = default");
    if (!accepts) reject_setting("config.quota_bytes", out.policy, "memory quota", policy_setting::quota);
  }
  if (accepts && out.quota_bytes == 0) out.quota_bytes = default_quota_bytes;
}

// The work/span mode (work_span.hpp) and its burden C.
void resolve_work_span(config& out) {
  work_span_unit from_env = work_span_unit::off;
  if (const char* v = env("WEFT_WORK_SPAN")) {
    const std::string s(v);
    if (s == "ns") from_env = work_span_unit::ns;
    else if (s == "calls") from_env = work_span_unit::calls;
    else if (s != "off")
      throw std::invalid_argument("weft: WEFT_WORK_SPAN = \"" + s + "\" is not a unit; accepted: off, ns, calls");
  }
  if (out.work_span == work_span_unit::off) {
    out.work_span = from_env;
  } else if (out.work_span != work_span_unit::ns && out.work_span != work_span_unit::calls) {
    throw std::invalid_argument("weft: config.work_span is not a unit; accepted: work_span_unit::off, ns, calls");
  }
  // NaN compares false with everything: refused first, or it would pass for unset (found by stop
  // 41's bug hunt: accepted while the mode was off).
  if (std::isnan(out.work_span_burden))
    throw std::invalid_argument("weft: config.work_span_burden is NaN; accepted: 0..2^40 (< 0 = default)");
  // The burden is a figure of the mode: given while the mode is off it would be ignored.
  const char* env_burden = env("WEFT_WORK_SPAN_BURDEN");
  const double burden_from_env =
      env_burden != nullptr ? parse_decimal("WEFT_WORK_SPAN_BURDEN", env_burden, double(std::uint64_t(1) << 40)) : -1;
  if ((out.work_span_burden >= 0 || env_burden != nullptr) && out.work_span == work_span_unit::off)
    throw std::invalid_argument(
        "weft: config.work_span_burden / WEFT_WORK_SPAN_BURDEN is set but the work/span mode is off; "
        "set config.work_span or WEFT_WORK_SPAN (ns, calls) too, or leave the burden unset");
  if (out.work_span == work_span_unit::off) return;  // the burden stays unset (-1): no mode, no figure
  if (out.work_span_burden < 0) {
    if (env_burden != nullptr)
      out.work_span_burden = burden_from_env;
    else
      out.work_span_burden = out.work_span == work_span_unit::calls ? 0.0 : default_work_span_burden_ns;
  } else if (!(out.work_span_burden <= double(std::uint64_t(1) << 40))) {
    throw std::invalid_argument("weft: config.work_span_burden is out of range; accepted: 0..2^40 (< 0 = default)");
  }
}

void resolve_trace(config& out) {
  const char* v = env("WEFT_TRACE");
  if (v != nullptr && *v == '\0') throw std::invalid_argument("weft: WEFT_TRACE is set but empty; accepted: a file path");
  if (out.trace_path.empty() && v != nullptr) out.trace_path = v;
  // The file would be the part before the NUL (open() reads a C string): a path never given
  // (stop 51's config hunt).  Only the field can hold one; a variable's value ends at its first.
  if (const std::size_t nul = out.trace_path.find('\0'); nul != std::string::npos)
    throw std::invalid_argument("weft: config.trace_path has a NUL byte at offset " + std::to_string(nul) +
                                "; accepted: a file path without one");
  // A file in a folder that does not exist can never be written: said when the pool is made, not
  // only on stderr when it is destroyed (stop 40's bug hunt).
  if (!out.trace_path.empty()) {
    const std::filesystem::path dir = std::filesystem::path(out.trace_path).parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
      throw std::invalid_argument("weft: trace_path / WEFT_TRACE \"" + out.trace_path + "\": the folder \"" +
                                  dir.string() + "\" does not exist");
    // Nor can a folder itself (WEFT_TRACE=/tmp, or a path ending in '/'): it was accepted, and the
    // file's failure came on stderr when the pool was destroyed (stop 43's bug hunt).
    if (std::filesystem::is_directory(out.trace_path, ec))
      throw std::invalid_argument("weft: trace_path / WEFT_TRACE \"" + out.trace_path +
                                  "\" is a folder; give the path of a file in it, e.g. \"" +
                                  (std::filesystem::path(out.trace_path) / "trace.json").lexically_normal().string() + "\"");
    // Nor one where the file cannot be made or written (a read-only folder or file, /proc): it was
    // accepted, and the run's trace lost with a line on stderr when the pool went (stop 51's config
    // hunt).  Asked by making the file (removed again) or opening the one there.
    if (const int why = trace_file_unwritable(out.trace_path); why != 0)
      throw std::invalid_argument("weft: trace_path / WEFT_TRACE \"" + out.trace_path +
                                  "\" cannot be written: " + std::strerror(why));
  }
}

// A size from the field, else the environment, else the default; within [lo, hi].
std::size_t resolve_size(std::size_t field, const char* field_name, setting_name env_name, std::size_t lo,
                         std::size_t hi, std::size_t fallback) {
  const char* v = env(env_name);
  const std::size_t from_env = v != nullptr ? std::size_t(parse_number(env_name.name, v, lo, hi)) : 0;
  if (field == 0) return v != nullptr ? from_env : fallback;
  if (field < lo || field > hi)
    throw std::invalid_argument(std::string("weft: ") + field_name + " = " + std::to_string(field) +
                                " is out of range; accepted: " + std::to_string(lo) + ".." + std::to_string(hi) +
                                " (0 = default)");
  return field;
}

void resolve_nesting(config& out) {
  const bool depth_given = out.max_depth != 0 || env("WEFT_MAX_DEPTH") != nullptr;
  out.max_depth = resolve_size(out.max_depth, "config.max_depth", "WEFT_MAX_DEPTH", min_max_depth, max_max_depth,
                               default_max_depth);
  // The fiber engine runs a join as a thread of its own, or inline past its fork limit: no join uses
  // a task stack, so a depth limit there would limit nothing (accepted and ignored before stop 45's
  // bug hunt).  What limits its nesting is the fibers' stacks.  Left unset (0): its workers get the
  // smallest task stack.
  if (traits_of(out.policy).runs_on == mechanism::fibers) {
    if (depth_given)
      throw std::invalid_argument(
          "weft: config.max_depth / WEFT_MAX_DEPTH is set but policy \"" + std::string(to_string(out.policy)) +
          "\" has no task stack (a join forks a thread with a fiber stack of its own, or, past "
          "config.fiber_fork_limit live threads, runs on its thread's: WEFT_FIBER_STACK_BYTES / "
          "config.fiber_stack_bytes sizes them); accepted only with " +
          names_where([](const detail::policy_traits& r) { return r.implemented && r.runs_on != mechanism::fibers; }, true));
    out.max_depth = 0;
  }
  out.stack_bytes = resolve_size(out.stack_bytes, "config.stack_bytes", "WEFT_STACK_BYTES", min_stack_bytes,
                                 max_stack_bytes, default_stack_bytes);
  // The trace buffers' size has a use only with a trace: given without one, it is an error, as
  // the other settings a policy or mode does not use (left unset it stays 0, so that a pool's
  // config() makes the same pool again).
  const bool events_given = out.trace_events != 0 || env("WEFT_TRACE_EVENTS") != nullptr;
  out.trace_events = resolve_size(out.trace_events, "config.trace_events", "WEFT_TRACE_EVENTS", min_trace_events,
                                  max_trace_events, default_trace_events);
  if (out.trace_path.empty()) {
    if (events_given)
      throw std::invalid_argument(
          "weft: config.trace_events / WEFT_TRACE_EVENTS is set but no trace is written (trace_path / WEFT_TRACE is empty)");
    out.trace_events = 0;
  } else if (traits_of(out.policy).runs_on == mechanism::caller) {
    // Nor with a trace on the caller: a serial pool's file has no worker lanes and no timer lane,
    // so no buffer for the setting to size (accepted and ignored before stop 54's trace hunt).
    if (events_given)
      throw std::invalid_argument("weft: config.trace_events / WEFT_TRACE_EVENTS is set but policy \"" +
                                  std::string(to_string(out.policy)) +
                                  "\" runs on the caller and records no lanes (its trace has the run's metadata "
                                  "only); unset it");
    out.trace_events = 0;
  }
}

// The fiber stack: only the fiber engine's policies have fibers.
void resolve_fiber_stack(config& out) {
  const bool has_fibers = traits_of(out.policy).runs_on == mechanism::fibers;
  const bool given = out.fiber_stack_bytes != 0 || env("WEFT_FIBER_STACK_BYTES") != nullptr;
  out.fiber_stack_bytes = resolve_size(out.fiber_stack_bytes, "config.fiber_stack_bytes", "WEFT_FIBER_STACK_BYTES",
                                       min_fiber_stack_bytes, max_fiber_stack_bytes, default_fiber_stack_bytes);
  if (!has_fibers) {
    if (given && out.fiber_stack_bytes != 0)
      throw std::invalid_argument("weft: config.fiber_stack_bytes / WEFT_FIBER_STACK_BYTES is set but policy \"" +
                                  std::string(to_string(out.policy)) + "\" has no fibers; accepted only with " +
                                  names_where([](const detail::policy_traits& r) { return r.runs_on == mechanism::fibers; }, true));
    out.fiber_stack_bytes = 0;
  }
}

// The fiber engine's fork limit (sched_fibers.cpp, placement): a count, "inf" (no limit), or
// unset; only the fiber engine's policies fork threads.
void resolve_fiber_fork_limit(config& out) {
  const bool has_fibers = traits_of(out.policy).runs_on == mechanism::fibers;
  const char* v = env("WEFT_FIBER_FORK_LIMIT");
  const std::size_t from_env =
      v == nullptr ? 0
      : std::string(v) == "inf"
          ? no_fork_limit
          : std::size_t(parse_number("WEFT_FIBER_FORK_LIMIT", v, 1, max_finite_fiber_fork_limit, "\"inf\""));
  const bool field_given = out.fiber_fork_limit != 0;
  if (out.fiber_fork_limit == 0) {
    out.fiber_fork_limit = v != nullptr ? from_env : default_fiber_fork_limit;
  } else if (out.fiber_fork_limit > max_finite_fiber_fork_limit && out.fiber_fork_limit != no_fork_limit) {
    throw std::invalid_argument("weft: config.fiber_fork_limit = " + std::to_string(out.fiber_fork_limit) +
                                " is out of range; accepted: 1.." + std::to_string(max_finite_fiber_fork_limit) +
                                ", weft::no_fork_limit, or 0 = default");
  }
  if (!has_fibers) {
    if (field_given || v != nullptr)
      throw std::invalid_argument(std::string("weft: ") + (field_given ? "config.fiber_fork_limit" : "WEFT_FIBER_FORK_LIMIT") +
                                  " is set but policy \"" + std::string(to_string(out.policy)) +
                                  "\" forks no threads; accepted only with " +
                                  names_where([](const detail::policy_traits& r) { return r.runs_on == mechanism::fibers; }, true));
    out.fiber_fork_limit = 0;
  }
}

// The steal backoff: only policies whose idle workers steal frames have it (the deque and Wool
// mechanisms; the fiber engine's idle workers take threads from one ready structure, and the serial
// policy has none).
bool has_stealing_workers(const detail::policy_traits& row) {
  return row.runs_on == mechanism::deque || row.runs_on == mechanism::wool_stack;
}

void resolve_steal_backoff(config& out) {
  const std::int64_t us = out.steal_backoff.count();
  if (us < -1 || us > max_steal_backoff_us)
    throw std::invalid_argument("weft: config.steal_backoff = " + std::to_string(us) + " us is out of range; accepted: 0 (off) .. " +
                                std::to_string(max_steal_backoff_us) + ", or -1 (default)");
  const char* v = env("WEFT_STEAL_BACKOFF_US");
  const auto from_env = v != nullptr ? parse_number("WEFT_STEAL_BACKOFF_US", v, 0, max_steal_backoff_us) : 0;
  bool given = true;
  if (us == -1) {
    if (v != nullptr)
      out.steal_backoff = std::chrono::microseconds(from_env);
    else
      given = false;
  }
  if (!has_stealing_workers(traits_of(out.policy))) {
    if (given)
      throw std::invalid_argument("weft: config.steal_backoff / WEFT_STEAL_BACKOFF_US is set but policy \"" +
                                  std::string(to_string(out.policy)) + "\" has no stealing workers; accepted only with " +
                                  names_where([](const detail::policy_traits& r) { return r.implemented && has_stealing_workers(r); }, true));
    // Left unset (-1), as every setting a policy has no use for: a pool made from this pool's
    // config() is then the same pool (0 would read as a backoff given, and be refused).
    out.steal_backoff = std::chrono::microseconds(-1);
    return;
  }
  // Heartbeat amortizes its promotions against N of work already (HB §2): a thief finds at most one
  // new item per beat, and on uts-bin, whose stolen subtrees are mostly small, waiting on top of that
  // made it 1.35x slower at 2 workers (docs/results/small-work.md, "Steal backoff").  Off by default.
  if (!given) out.steal_backoff = traits_of(out.policy).when == trigger::heartbeat ? std::chrono::microseconds(0) : default_steal_backoff;
}

// Misspelled variables (env_settings.hpp).  Optimal string alignment distance (Damerau-Levenshtein
// with adjacent transpositions), letter case aside, from a name to a setting; three rows as long as
// the setting, on the stack (no allocation at each pool's construction).
constexpr std::size_t longest_setting = [] {
  std::size_t n = 0;
  for (std::string_view s : env_settings) n = std::max(n, s.size());
  return n;
}();

// Letter case aside, for the names of variables (ASCII; the locale plays no part).
constexpr char up(char c) noexcept { return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c; }

bool starts_ignoring_case(std::string_view s, std::string_view prefix) noexcept {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (up(s[i]) != up(prefix[i])) return false;
  return true;
}

std::size_t typo_distance(std::string_view a, std::string_view setting) noexcept {
  const std::string_view& b = setting;
  std::array<std::size_t, longest_setting + 1> before{}, prev{}, cur{};
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (up(a[i - 1]) == up(b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && up(a[i - 1]) == up(b[j - 2]) && up(a[i - 2]) == up(b[j - 1]))
        cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    before = prev;
    prev = cur;
  }
  return prev[b.size()];
}

// The names already warned about in this process: pushed at the front, never removed (but by
// forget_env_warnings), so a name is added once without a lock — none to be held across fork(),
// whose child keeps the list (and does not repeat its parent's lines).
struct warned_name {
  std::string name;
  warned_name* next;
};
std::atomic<warned_name*> warned_names{nullptr};

// True for the first caller with this name in the process.
bool first_warning(std::string_view name) {
  warned_name* head = warned_names.load(std::memory_order_acquire);
  warned_name* checked = nullptr;  // the list from here on has been searched
  warned_name* mine = nullptr;
  for (;;) {
    for (warned_name* n = head; n != checked; n = n->next)
      if (n->name == name) {
        delete mine;
        return false;
      }
    if (mine == nullptr) mine = new warned_name{std::string(name), nullptr};
    mine->next = head;
    // Fails only if a name was pushed meanwhile (or spuriously): search the new ones, then retry.
    if (warned_names.compare_exchange_weak(head, mine, std::memory_order_acq_rel, std::memory_order_acquire))
      return true;
    checked = mine->next;
  }
}

// "WEFT" in any case (weft_policy, WEFTPOLICY: names a user may mistype too; only WEFT_ was looked
// at before stop 47).  Inline and stopping at the first letter that differs (strncmp through the
// PLT took 4-8x as long).
bool starts_with_weft(const char* entry) noexcept {
  for (const char c : std::string_view("WEFT"))
    if (up(*entry++) != c) return false;  // a shorter entry differs at its terminating NUL
  return true;
}

// Every WEFT* variable (any case) that is no setting but close to one gets one line on stderr, once per
// process per name; the variable is still ignored.  Others (WEFT_TEST_SCALE, WEFT_BENCH_RECORD, a
// program's own) stay quiet.  One pass over environ at each pool's construction: ~50 ns for 35
// variables, none WEFT_* (a pool's construction starts threads).
void warn_misspelled_env() {
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (!starts_with_weft(*e)) continue;
    const char* eq = std::strchr(*e, '=');
    const std::string_view name(*e, eq != nullptr ? std::size_t(eq - *e) : std::strlen(*e));
    if (detail::is_env_setting(name)) continue;
    const std::string_view meant = detail::env_setting_near(name);
    if (meant.empty() || !first_warning(name)) continue;
    const std::string line = "weft: environment variable " + std::string(name) +
                             " is not a weft setting and is ignored; did you mean " + std::string(meant) + "?\n";
    [[maybe_unused]] const auto r = ::write(2, line.data(), line.size());  // one write: lines stay whole
  }
}

}  // namespace

std::string_view env_setting_near(std::string_view name) noexcept {
  constexpr std::string_view prefix = "WEFT_";
  if (!starts_ignoring_case(name, prefix.substr(0, 4)) || is_env_setting(name)) return {};
  std::string_view best;
  std::size_t best_distance = std::size_t(-1);
  for (std::string_view s : env_settings) {
    const std::size_t dist = typo_distance(name, s);
    const bool close = dist <= 2 || starts_ignoring_case(name, s) ||
                       (name.size() >= prefix.size() + 3 && starts_ignoring_case(s, name));
    if (close && dist < best_distance) best = s, best_distance = dist;
  }
  return best;
}

void forget_env_warnings() noexcept {
  warned_name* n = warned_names.exchange(nullptr, std::memory_order_acq_rel);
  while (n != nullptr) delete std::exchange(n, n->next);
}

config resolve(const config& in) {
  warn_misspelled_env();
  config out = in;
  resolve_workers_setting(out);
  const bool workers_from_env = in.workers == 0 && out.workers != 0;
  resolve_policy(out);
  resolve_worker_count(out, workers_from_env);
  resolve_heartbeat(out);
  resolve_heartbeat_delivery(out);
  resolve_quota(out);
  resolve_trace(out);
  resolve_nesting(out);
  resolve_fiber_stack(out);
  resolve_fiber_fork_limit(out);
  resolve_work_span(out);
  resolve_steal_backoff(out);
  return out;
}

[[noreturn]] void throw_no_memory(std::string message) {
  struct no_memory : std::bad_alloc {
    std::string message;
    const char* what() const noexcept override { return message.c_str(); }
  } e;
  e.message = std::move(message);
  throw e;
}

}  // namespace detail
}  // namespace weft
