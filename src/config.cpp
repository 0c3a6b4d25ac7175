// weft — policy names, configuration from fields and environment, validation (SPEC §2).
#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "config_resolve.hpp"
#include "weft/config.hpp"

namespace weft {

namespace {

struct policy_name {
  policy value;
  std::string_view name;
};

constexpr policy_name policy_names[] = {
    {policy::automatic, "auto"},      {policy::serial, "serial"},     {policy::ws, "ws"},
    {policy::ws_ap, "ws-ap"},         {policy::wool, "wool"},         {policy::lazy_df, "lazy-df"},
    {policy::lazy_df2, "lazy-df2"},   {policy::lazy_bf, "lazy-bf"},   {policy::heartbeat, "heartbeat"},
    {policy::adf, "adf"},             {policy::dfd, "dfd"},           {policy::fifo, "fifo"},
};

std::string accepted_policies() {
  std::string out;
  for (const auto& p : policy_names) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out;
}

// A decimal integer in [lo, hi], or an std::invalid_argument naming the setting.
std::uint64_t parse_number(const char* setting, const std::string& text, std::uint64_t lo,
                           std::uint64_t hi) {
  const std::string accepted = "a decimal integer in " + std::to_string(lo) + ".." + std::to_string(hi);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument(std::string("weft: ") + setting + " = \"" + text + "\" is malformed; accepted: " + accepted);
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE || v < lo || v > hi)
    throw std::invalid_argument(std::string("weft: ") + setting + " = " + text + " is out of range; accepted: " + accepted);
  return v;
}

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v;  // an empty value counts as set (and is rejected as malformed)
}

}  // namespace

policy parse_policy(std::string_view name) {
  for (const auto& p : policy_names)
    if (p.name == name) return p.value;
  throw std::invalid_argument("weft: unknown policy \"" + std::string(name) +
                              "\"; accepted: " + accepted_policies());
}

std::string_view to_string(policy p) noexcept {
  for (const auto& n : policy_names)
    if (n.value == p) return n.name;
  return "?";
}

std::vector<policy> implemented_policies() {
  return {policy::serial, policy::ws, policy::ws_ap, policy::wool, policy::lazy_df,
          policy::lazy_df2, policy::lazy_bf, policy::heartbeat};
}

namespace detail {

// The policy that wins the benchmark suite: docs/results/adaptive.md has the evidence.
policy default_policy() noexcept { return policy::lazy_bf; }

config resolve(const config& in) {
  config out = in;
  if (out.workers == 0) {
    if (const char* v = env("WEFT_WORKERS"))
      out.workers = unsigned(parse_number("WEFT_WORKERS", v, 1, max_workers));
  } else if (out.workers > max_workers) {
    throw std::invalid_argument("weft: config.workers = " + std::to_string(out.workers) +
                                " is out of range; accepted: 1.." + std::to_string(max_workers) +
                                " (0 = automatic)");
  }
  if (out.policy == policy::automatic) {
    if (const char* v = env("WEFT_POLICY")) {
      try {
        out.policy = parse_policy(v);
      } catch (const std::invalid_argument&) {
        throw std::invalid_argument("weft: WEFT_POLICY = \"" + std::string(v) +
                                    "\" is not a policy; accepted: " + accepted_policies());
      }
    }
    if (out.policy == policy::automatic) out.policy = default_policy();
  }
  bool implemented = false;
  for (policy p : implemented_policies()) implemented |= p == out.policy;
  if (!implemented)
    throw std::invalid_argument("weft: policy \"" + std::string(to_string(out.policy)) +
                                "\" is not implemented in this build yet; implemented: serial, ws, ws-ap, wool, lazy-df, lazy-df2, lazy-bf, heartbeat");
  if (out.workers == 0) {
    if (out.policy == policy::serial) {
      out.workers = 1;
    } else {
      const unsigned hw = std::thread::hardware_concurrency();
      out.workers = hw == 0 ? 1 : (hw > max_workers ? max_workers : hw);
    }
  }
  if (out.policy == policy::serial && out.workers != 1)
    throw std::invalid_argument("weft: policy \"serial\" runs on the caller alone; workers = " +
                                std::to_string(out.workers) + " is not accepted (use 1 or 0)");

  const bool heartbeat_policy = out.policy == policy::heartbeat;
  if (out.heartbeat.count() == 0) {
    if (const char* v = env("WEFT_HEARTBEAT_US")) {
      out.heartbeat = std::chrono::microseconds(parse_number("WEFT_HEARTBEAT_US", v, 1, 100000000));
      if (!heartbeat_policy)
        throw std::invalid_argument("weft: WEFT_HEARTBEAT_US is set but policy \"" +
                                    std::string(to_string(out.policy)) + "\" has no heartbeat; accepted only with heartbeat");
    }
  } else {
    if (out.heartbeat.count() < 1 || out.heartbeat.count() > 100000000)
      throw std::invalid_argument("weft: config.heartbeat = " + std::to_string(out.heartbeat.count()) +
                                  " us is out of range; accepted: 1..100000000 us (0 = default)");
    if (!heartbeat_policy)
      throw std::invalid_argument("weft: config.heartbeat is set but policy \"" +
                                  std::string(to_string(out.policy)) + "\" has no heartbeat; accepted only with heartbeat");
  }
  if (heartbeat_policy && out.heartbeat.count() == 0) out.heartbeat = default_heartbeat;
  const bool quota_policy = out.policy == policy::adf || out.policy == policy::dfd;
  if (out.quota_bytes == 0) {
    if (const char* v = env("WEFT_QUOTA")) {
      out.quota_bytes = std::size_t(parse_number("WEFT_QUOTA", v, 1, std::uint64_t(1) << 48));
      if (!quota_policy)
        throw std::invalid_argument("weft: WEFT_QUOTA is set but policy \"" + std::string(to_string(out.policy)) +
                                    "\" has no memory quota; accepted only with adf and dfd");
    }
  } else if (!quota_policy) {
    throw std::invalid_argument("weft: config.quota_bytes is set but policy \"" + std::string(to_string(out.policy)) +
                                "\" has no memory quota; accepted only with adf and dfd");
  }
  if (out.trace_path.empty()) {
    if (const char* v = env("WEFT_TRACE")) {
      if (*v == '\0') throw std::invalid_argument("weft: WEFT_TRACE is set but empty; accepted: a file path");
      out.trace_path = v;
    }
  }
  if (!out.trace_path.empty())
    throw std::invalid_argument("weft: trace_path / WEFT_TRACE (\"" + out.trace_path +
                                "\"): tracing is not implemented in this build yet; leave it empty");
  return out;
}

}  // namespace detail
}  // namespace weft
