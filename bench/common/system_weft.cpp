// bench/common/system_weft.cpp: the weft pool of a benchmark run.
//
// The pool is built from --workers and --policy (absent: the library default, which
// WEFT_POLICY may set); the counters of the timed run (reset right before it, read right
// after it) are printed as "stats" in the JSON line.
#include "system_weft.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench.hpp"

namespace bench {
namespace {
std::unique_ptr<weft::pool> the_pool;
std::optional<weft::counters> timed_counters;
}  // namespace

weft::pool& weft_pool() {
    if (!the_pool) throw std::logic_error("bench::weft_pool() used before system_setup");
    return *the_pool;
}

const char* system_name() { return "weft"; }

void system_setup(const args& a) {
    weft::config cfg;
    cfg.workers = a.workers;
    // parse_policy throws std::invalid_argument naming the accepted values: exit code 2.
    if (!a.policy.empty()) cfg.policy = weft::parse_policy(a.policy);
    try {
        the_pool = std::make_unique<weft::pool>(cfg);
    } catch (const std::invalid_argument& e) {
        // weft names the field --workers set (config.workers: past its 1,024 though within this
        // command line's 4,096, or not 1 under serial); the user typed the option, so it is named
        // too (stop 51's config hunt).  Other errors (a WEFT_* variable) name themselves.
        const std::string why = e.what();
        if (why.find("config.workers") != std::string::npos)
            throw usage_error("--workers " + std::to_string(a.workers) + ": " + why);
        throw;
    }
}

std::string system_policy() { return std::string(weft::to_string(weft_pool().policy())); }

std::vector<std::string> system_policy_names() {
    std::vector<std::string> names;
    for (weft::policy p : weft::implemented_policies()) names.emplace_back(weft::to_string(p));
    return names;
}

output system_run(kernel_fn fn, const args& a) { return fn(a); }

void system_before_timed() { weft_pool().reset_stats(); }

void system_after_timed() { timed_counters = weft_pool().stats().total; }

std::string system_extra_json() {
    if (!timed_counters) return "";
    const weft::counters& c = *timed_counters;
    std::string s = ",\"stats\":{";
    bool first = true;
    auto field = [&](const char* name, std::uint64_t v) {
        s += first ? "\"" : ",\"";
        first = false;
        s += name;
        s += "\":";
        s += std::to_string(v);
    };
    field("joins", c.joins);
    field("loop_iterations", c.loop_iterations);
    field("promotions", c.promotions);
    field("steals", c.steals);
    field("steal_attempts", c.steal_attempts);
    field("leapfrogs", c.leapfrogs);
    field("deque_checks", c.deque_checks);
    field("idle_ns", c.idle_ns);
    field("heap_peak_bytes", c.heap_peak_bytes);
    field("live_threads_peak", c.live_threads_peak);
    field("heartbeats_requested", c.heartbeats_requested);
    field("heartbeats_delivered", c.heartbeats_delivered);
    field("fiber_stack_peak_bytes", c.fiber_stack_peak_bytes);
    field("quota_preemptions", c.quota_preemptions);
    field("dummy_threads", c.dummy_threads);
    field("steal_backoffs", c.steal_backoffs);
    s += "}";
    return s;
}

}  // namespace bench
