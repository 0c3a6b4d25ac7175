#include "costs.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "parse.hpp"
#include "policy_table.hpp"

namespace weft_sim {
namespace {

struct CostField {
  const char* name;
  Time Costs::*time;
  std::uint64_t Costs::*count;
};

constexpr CostField kFields[] = {
    {"join", &Costs::join, nullptr},          {"iter", &Costs::iter, nullptr},
    {"loop", &Costs::loop, nullptr},
    {"promote", &Costs::promote, nullptr},
    {"split", &Costs::split, nullptr},        {"pop", &Costs::pop, nullptr},            {"steal", &Costs::steal, nullptr},
    {"probe", &Costs::probe, nullptr},       {"steal_jitter", nullptr, &Costs::steal_jitter},
    {"speed_spread", nullptr, &Costs::speed_spread},
    {"sync", &Costs::sync, nullptr},          {"check", &Costs::check, nullptr},
    {"poll", &Costs::poll, nullptr},          {"heartbeat", &Costs::heartbeat, nullptr},
    {"chunk_low", &Costs::chunk_low, nullptr}, {"chunk_high", &Costs::chunk_high, nullptr},
    {"chunk_untimed", nullptr, &Costs::chunk_untimed}, {"chunk_growth", nullptr, &Costs::chunk_growth},
    {"slice_on", &Costs::slice_on, nullptr},  {"slice_off", &Costs::slice_off, nullptr},
    {"quota", nullptr, &Costs::quota},        {"fork_limit", nullptr, &Costs::fork_limit},
    {"ap_k", nullptr, &Costs::ap_k},
    {"ap_v", nullptr, &Costs::ap_v},          {"ap_defer", &Costs::ap_defer, nullptr},
    {"wool_public", nullptr, &Costs::wool_public},
    {"wool_step", nullptr, &Costs::wool_step},
    {"backoff", &Costs::backoff, nullptr},    {"backoff_small", &Costs::backoff_small, nullptr},
    {"backoff_first", &Costs::backoff_first, nullptr},
};

// The on/off rules (0 or 1).
struct CostFlag {
  const char* name;
  bool Costs::*on;
};

constexpr CostFlag kFlags[] = {
    {"leapfrog", &Costs::leapfrog}, {"detach", &Costs::detach}, {"hb_thread_credit", &Costs::hb_thread_credit},
    {"hb_spare", &Costs::hb_spare}, {"poll_first", &Costs::poll_first}};

std::string accepted() {
  std::string s;
  for (const auto& f : kFields) s += std::string(s.empty() ? "" : ", ") + f.name;
  for (const auto& f : kFlags) s += std::string(", ") + f.name;
  return s;
}

}  // namespace

void set_cost(Costs& c, std::string_view assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos)
    throw std::invalid_argument("--cost: expected name=value, got '" + std::string(assignment) + "'");
  const std::string_view name = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  const std::optional<std::uint64_t> parsed = whole_uint(text);
  // Digits alone past 2^64 - 1 are a value too large for the setting (said below, with its
  // limit), not "not a non-negative integer".
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
  if (!parsed && !digits)
    throw std::invalid_argument("--cost " + std::string(name) + ": '" + std::string(text) +
                                "' is not a non-negative integer");
  const std::uint64_t v = parsed ? *parsed : UINT64_MAX;
  for (const auto& f : kFlags) {
    if (name != f.name) continue;
    if (v > 1) throw std::invalid_argument("--cost " + std::string(name) + ": accepted values are 0 and 1");
    c.*f.on = v == 1;
    return;
  }
  for (const auto& f : kFields) {
    if (name != f.name) continue;
    if (v > kMaxTimeValue)
      throw std::invalid_argument("--cost " + std::string(name) + ": " + std::string(text) +
                                  " is above 2^40 = 1099511627776, the largest value the simulator takes");
    // Counts with no "off" at 0: wool_step 0 grew the public window by nothing when its trip wire
    // was stolen (stop 50's hunts).  Checked before the value is set: a refused one leaves it.
    if ((name == "ap_k" || name == "ap_v" || name == "wool_public" || name == "wool_step" || name == "chunk_growth") &&
        v == 0)
      throw std::invalid_argument("--cost " + std::string(name) + ": must be at least 1");
    if (f.time) c.*f.time = v; else c.*f.count = v;
    return;
  }
  throw std::invalid_argument("--cost: unknown name '" + std::string(name) + "'; accepted: " +
                              accepted());
}

void check_costs(const Costs& c, std::string_view policy) {
  if (policy_by_name(policy).trigger == Trigger::heartbeat && c.heartbeat == 0)
    throw CostRefused("heartbeat", "N must be at least 1 under heartbeat");
  // A spread over 100 % would make some steals cost less than nothing.
  if (c.steal_jitter > 100)
    throw CostRefused("steal_jitter", std::to_string(c.steal_jitter) +
                                          " is above 100 (percent: each steal costs steal x [1 - j/100, 1 + j/100])");
  // A spread of 50 % already lets one processor run twice as fast as another; more would let a
  // factor reach 0.
  if (c.speed_spread > 50)
    throw CostRefused("speed_spread", std::to_string(c.speed_spread) +
                                          " is above 50 (percent: each processor runs work at a factor in "
                                          "[1 - s/100, 1 + s/100])");
  if (c.speed_spread > 0 && policy_by_name(policy).trigger == Trigger::space_efficient)
    throw CostRefused("speed_spread", "is modelled for the stack engine's policies only (not adf, dfd, fifo); "
                                      "speed_spread=0 there");
  // Pairs checked under every policy, as a bad name is: a sweep's value fails every run alike.
  // chunk_low above chunk_high ran chunks that doubled without end (a chunk of chunk_high..chunk_low
  // units neither doubled nor halved: none was; one under chunk_low doubled, one over chunk_high
  // halved, so a chunk alternated or grew to kChunkMax).  chunk_low 0 is the switch off (the
  // calibrated preset's chunk_high stays, unused).
  if (c.chunk_low > c.chunk_high)
    throw CostRefused("chunk_low",
                      std::to_string(c.chunk_low) + " is above chunk_high " + std::to_string(c.chunk_high) +
                          " (a chunk doubles while it takes under chunk_low units and halves over chunk_high: "
                          "chunk_low must be at most chunk_high; chunk_low=0 runs loops unchunked)",
                      "chunk_high");
  // poll_first is LS Fig. 3's check before a TD's first task, modelled for unchunked loops only
  // (the runtime's chunks poll after each chunk, never before the first): with chunks on it would
  // change nothing, silently.
  if (c.poll_first && c.chunk_low > 0)
    throw CostRefused("poll_first",
                      "1 is for unchunked loops (chunk_low 0; it is " + std::to_string(c.chunk_low) +
                          "): a chunked piece polls after each chunk, as the runtime's, never before its first",
                      "chunk_low");
  // The steal backoff, when on: backoff_first 0 waited 0 units every time (0 doubled is 0), yet
  // counted steal_backoffs; backoff_small 0 made no theft small, so it never waited; a first wait
  // above the longest was cut to it at once.  backoff 0 is the switch off (the calibrated preset's
  // other two stay, unused).
  if (c.backoff > 0) {
    const std::string on = " while backoff is on (" + std::to_string(c.backoff) + ")";
    if (c.backoff_first == 0)
      throw CostRefused("backoff_first", "must be at least 1" + on +
                                             ": each wait doubles the last one from backoff_first; backoff=0 turns "
                                             "the backoff off",
                        "backoff");
    if (c.backoff_first > c.backoff)
      throw CostRefused("backoff_first",
                        std::to_string(c.backoff_first) + " is above backoff " + std::to_string(c.backoff) +
                            " (the first wait, doubled per small theft in a row up to backoff, the longest)",
                        "backoff");
    if (c.backoff_small == 0)
      throw CostRefused("backoff_small", "must be at least 1" + on +
                                             ": a theft is small under backoff_small units, and with 0 none is, so "
                                             "no wait ever comes; backoff=0 turns the backoff off",
                        "backoff");
  }
}

std::vector<std::pair<std::string, std::uint64_t>> cost_values(const Costs& c) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const auto& f : kFields) out.emplace_back(f.name, f.time ? c.*f.time : c.*f.count);
  for (const auto& f : kFlags) out.emplace_back(f.name, c.*f.on ? 1 : 0);
  return out;
}

Costs zero_costs() {
  Costs c;
  c.join = c.promote = c.pop = c.steal = c.sync = c.check = 0;
  return c;
}

}  // namespace weft_sim

namespace weft_sim {

// A machine's own calibration (`--costs file:PATH`; sim/calibrate.sh writes it with
// sim/fit_costs.py --out): the `calibrated` preset, with the file's values over it.  A line
// "name=value" sets a cost for every policy, "POLICY.name=value" for that policy only; '#' starts a
// comment; blanks around the name and the value are allowed, inside either they are not ("st eal"
// was read as "steal"); a POLICY.name line wins over a name line for that policy, in either
// order.  Every line is checked whatever the policy, so a bad name fails every run alike; a name
// given twice is refused, as `--cost` refuses it (the last one won silently), and so is a value the
// policy cannot take (heartbeat.heartbeat=0), with the line that set it.
Costs costs_from_file(std::string_view path, std::string_view policy) {
  Costs c = cost_preset("calibrated", policy);
  const std::string where = "--costs file:" + std::string(path);
  if (path.empty()) throw std::invalid_argument(where + ": the path is empty (file:PATH)");  // "cannot read" before
  std::error_code ec;  // a directory opens as a stream that reads nothing: the preset ran unchanged
  if (std::filesystem::exists(std::string(path), ec) && !std::filesystem::is_regular_file(std::string(path), ec))
    throw std::invalid_argument(where + ": not a regular file");
  std::ifstream in{std::string(path)};
  if (!in) throw std::invalid_argument(where + ": cannot read the file");
  auto trim = [](std::string_view t) {
    const auto first = t.find_first_not_of(" \t\r");
    return first == std::string_view::npos ? std::string_view{} : t.substr(first, t.find_last_not_of(" \t\r") - first + 1);
  };
  std::map<std::string, unsigned, std::less<>> seen;  // "[POLICY.]name" -> its line
  std::map<std::string, unsigned, std::less<>> set_here;  // name -> the line whose value `policy` takes
  std::set<std::string, std::less<>> set_by_policy;       // names a `policy.name` line set
  std::string line;
  bool fitted = false;  // written by sim/fit_costs.py (its first line says so)
  for (unsigned n = 1; std::getline(in, line); ++n) {
    // An editor's byte-order mark is no part of the first name ("unknown name 'steal'", the mark unseen).
    if (n == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
    if (n == 1) fitted = line.starts_with("# weft-sim costs") && line.find("fitted by sim/fit_costs.py") != std::string::npos;
    // A file cut inside its last number read as a smaller one (steal=11 for 11800).  A hand-written
    // file may lack its final newline, and is then undetectably cut; fit_costs.py's files always
    // end with one, so theirs is checked.
    if (fitted && in.eof())
      throw std::invalid_argument(where + " line " + std::to_string(n) +
                                  ": the file ends inside this line (no newline after it), and sim/fit_costs.py "
                                  "ends its files with one: a truncated file?");
    const std::string_view text = trim(std::string_view(line).substr(0, line.find('#')));
    if (text.empty()) continue;
    try {
      const auto eq = text.find('=');
      if (eq == std::string_view::npos)
        throw std::invalid_argument("expected name=value or POLICY.name=value, got '" + std::string(text) + "'");
      const std::string_view key = trim(text.substr(0, eq)), value = trim(text.substr(eq + 1));
      for (const std::string_view part : {key, value})
        if (part.find_first_of(" \t") != std::string_view::npos)
          throw std::invalid_argument("'" + std::string(part) + "' has a blank inside it");
      if (const auto [at, fresh] = seen.emplace(std::string(key), n); !fresh)
        throw std::invalid_argument(std::string(key) + " is named twice (first on line " +
                                    std::to_string(at->second) + ")");
      std::string_view name = key;
      bool applies = true, specific = false;
      if (const auto dot = key.find('.'); dot != std::string_view::npos) {
        const std::string_view target = key.substr(0, dot);
        policy_by_name(target);
        applies = specific = target == policy;
        name.remove_prefix(dot + 1);
      }
      // POLICY.name wins over name wherever the two lines are: a `steal=...` line after
      // `ws.steal=...` replaced ws's own value silently (stop 48's sim hunt).
      if (!specific && set_by_policy.contains(name)) applies = false;
      Costs scratch = c;
      set_cost(applies ? c : scratch, std::string(name) + "=" + std::string(value));
      if (applies) set_here[std::string(name)] = n;
      if (specific) set_by_policy.emplace(name);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + " line " + std::to_string(n) + ": " + e.what());
    }
  }
  // Not one value (an empty file, blank lines or comments alone: a write that failed or was cut
  // before its first value) ran the built-in preset as if it were this machine's calibration.
  if (seen.empty())
    throw std::invalid_argument(where + ": no cost values in it (an empty file, or comments alone: a failed "
                                "or truncated write?); --costs calibrated is the built-in preset alone");
  try {
    check_costs(c, policy);
  } catch (const CostRefused& e) {
    // A pair's refusal names the line of the file that set either of its costs (the later one).
    auto at = set_here.find(e.cost);
    if (const auto other = set_here.find(e.other); other != set_here.end() && (at == set_here.end() || other->second > at->second))
      at = other;
    if (at == set_here.end()) throw;
    throw std::invalid_argument(where + " line " + std::to_string(at->second) + ": " + e.cost + ": " + e.why);
  }
  return c;
}

// Measured on the 2-core development VM (docs/results/sim.md, "Calibration", has the commands,
// the raw figures and the fit, sim/fit_costs.py), in units of 0.1 ns so that a fib call (0.38 ns)
// has weight 4.  Single-worker costs per group of policies whose runtime code paths are the same
// at P = 1; the rest is shared.  Fitted 2026-11-24 on the Intel Xeon VM at commit 7b60d8d (the
// fit of 2026-11-23, on an AMD EPYC VM and before the promotion ledger became owner-private, is in
// sim.md); with the runtime's default rules of that day: the steal backoff and the spare
// heartbeat delivery.  Refitted 2026-11-24 (stop 23) at commit 024bbb9: ws-ap's loop pieces
// check their partitioner themselves, the eager join without its mark and live count.  Refitted
// in stop 25 with the runtime's promotion rules in the model (the task's base, DF's top frame, wool's
// slots, loop chunks, free empty loops) and a lazy check that fills the deque to THR.
Costs cost_preset(std::string_view name, std::string_view policy) {
  if (name == "default") return Costs{};
  if (name.starts_with("file:")) return costs_from_file(name.substr(5), policy);
  if (name != "calibrated")
    throw std::invalid_argument("--costs: unknown preset '" + std::string(name) +
                                "'; accepted: default, calibrated, file:PATH");
  // NAR's thread engines (adf, dfd, fifo) have no steal backoff and no modelled speed spread.
  const bool thread_engine = policy == "adf" || policy == "dfd" || policy == "fifo";
  Costs c;
  c.check = 10;       // one poll: a load of the own deque's size or the beat flag (held, not fitted)
  c.pop = 60;         // the owner's pop of its promoted item (held: not separable from promote)
  c.promote = 31;     // fitted: ws's fib overhead per join less join and pop (a deque push)
  c.split = 99;       // fitted: ws's nqueens overhead per loop split less loop, iter, promote, pop
  c.steal = 11800;    // 1.18 us per successful steal: the median over policies, WOOL Table III method
  c.probe = 1000;     // 100 ns per failed attempt: the idle loop's spin (idle.cpp) on a free core
  c.steal_jitter = 50;  // a steal's latency varies (Costs::steal_jitter): uniform in 0.5-1.5 x steal
  // The processors' speeds differ per run (Costs::speed_spread): 0.85-1.15, on the stack engine only.
  if (!thread_engine) c.speed_spread = 15;
  c.sync = 500;       // a finished stolen branch signalling its join (a remote cache line)
  c.heartbeat = 400000;  // N = 40 us, the runtime's default beat
  c.ap_defer = 30800;    // ws-ap: the runtime's ap_defer_cycles, 8,000 cycles of the 2.6 GHz counter
  c.chunk_low = 7700;    // the runtime's chunk_cycles_low and _high: 2,000 and 8,000 cycles
  c.chunk_high = 30800;
  c.chunk_untimed = 64;  // loop.hpp: untimed_iterations; the recorded kernels are reductions (growth 2)
  c.chunk_growth = 2;
  c.hb_spare = true;     // the runtime's default delivery (src/heartbeat.cpp)
  c.fork_limit = 4096;   // the runtime's default config::fiber_fork_limit (adf, dfd, fifo)
  // The runtime's steal backoff defaults (src/config_resolve.hpp): 1 us doubling to 256 us after a
  // theft of under 8 us of work (16 under wool); off under heartbeat, absent from the thread engines.
  if (policy != "heartbeat" && !thread_engine) {
    c.backoff = 2560000;
    c.backoff_small = policy == "wool" ? 160000 : 80000;
    c.backoff_first = 10000;
  }
  // Fitted per group: fib's overhead per join gives `join`; nqueens' and uts-geo's (loops only)
  // give `loop` and `iter`.  ws builds the lazy group's descriptor and runs its loop code; ws-ap's
  // loop pieces arm and read the partitioner's clock (its own fit, after the deferred splits).
  if (policy == "wool") {  // its task-stack descriptor (sched_wool.cpp)
    c.join = 14;
    c.loop = 112;
    c.iter = 47;
  } else if (policy == "ws-ap") {  // ws's join; its loop pieces read the clock (ap_defer) per chunk
    c.join = 14;
    c.loop = 632;
    c.iter = 1;
  } else {  // lazy-df, lazy-df2, lazy-bf, heartbeat, ws (and the thread engines)
    c.join = 14;
    c.loop = 203;
    c.iter = 0;
  }
  return c;
}

}  // namespace weft_sim
