// weft-overhead — the single-worker cost of a join, and the cost of a steal.
//
//   weft-overhead ratio N RUNS [POLICY|value:POLICY...]
//       fib(N) with no cutoff: the serial elision and weft on 1 worker for each policy (default
//       serial ws wool), alternated run by run (A B C A B C ...), RUNS times; prints the median
//       times and T1/Ts, the 2-worker speedup over 1 worker, and the median steals and promotions
//       per run (weft-sim's calibration, docs/results/sim.md).  value:POLICY runs fib as README
//       "Cheap joins" writes it (tools::fib_value) under POLICY.
//   weft-overhead once elision|twocalls|POLICY|scope:POLICY|value:POLICY|spawn:POLICY N
//       one run of fib(N), for `valgrind --tool=callgrind` (instruction counts are deterministic);
//       see tools/join_cost.sh, which differences two sizes to cancel start-up costs.  scope:POLICY
//       runs fib written with weft::scope (one spawn and sync per node) instead of join;
//       value:POLICY fib with n captured by value and a noexcept first branch (tools::fib_value);
//       spawn:POLICY the same program written with weft::spawn (tools::fib_spawn).
//   weft-overhead steal LEAF REPS RUNS [POLICY...]
//       WOOL Table III: a join tree of height 1 (two leaves of LEAF loop iterations) run REPS times
//       on 2 workers; cost per steal = T_rep - T_leaf.  Prints the median over RUNS runs.  Default
//       policies ws wool; serial (one worker: no steal to time) is refused.
//   weft-overhead unwind DEPTH RUNS [POLICY...]
//       An exception thrown at the bottom of DEPTH nested joins (each a join whose first branch goes
//       one level deeper) against the same recursion as plain calls, both on 1 worker of POLICY
//       (default serial lazy-bf wool ws), alternated, RUNS times; prints the medians, the time per
//       level and the ratio (docs/results/fine-grained.md, "An exception through nested joins").
#include <weft/weft.hpp>

#include "args.hpp"
#include "programs.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using tools::fib_serial;
constexpr auto fib_weft = tools::fib_alone;  // fib in a unit of its own (fib_alone.cpp)

// Exactly two calls per node: the baseline of "a join costs k instructions beyond two calls".
__attribute__((noinline, optimize("no-optimize-sibling-calls"))) long fib_twocalls(int n) {
  if (n < 2) return n;
  const long a = fib_twocalls(n - 1);
  return a + fib_twocalls(n - 2);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Leaf work of the stress benchmark: a dependent chain with no memory references.
__attribute__((noinline)) std::uint64_t leaf(std::uint64_t x, int iters) {
  for (int i = 0; i < iters; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    asm volatile("" : "+r"(x));
  }
  return x;
}

std::vector<std::string> policies_or_default(int argc, char** argv, int first,
                                             std::vector<std::string> fallback = {"serial", "ws", "wool"}) {
  std::vector<std::string> out;
  for (int i = first; i < argc; ++i) out.emplace_back(argv[i]);
  if (out.empty()) out = std::move(fallback);
  return out;
}

// The unwind mode's recursion: a throw at depth `bottom`, caught by the caller of the outermost call.
// The elision's calls are the join's branches as plain calls (noinline, and a barrier after the call,
// so that the recursion stays one: gcc otherwise turns it into a loop).
struct unwind_bottom {};
__attribute__((noinline)) long unwind_elision(long d, long bottom) {
  if (d == bottom) throw unwind_bottom{};
  const long a = unwind_elision(d + 1, bottom);
  asm volatile("" ::: "memory");
  return a + d;
}
long unwind_join(long d, long bottom) {
  if (d == bottom) throw unwind_bottom{};
  auto [a, b] = weft::join([&] { return unwind_join(d + 1, bottom); }, [&] { return d; });
  return a + b;
}
// Seconds until the exception thrown at the bottom reached this thread, through the pool's run.
template <class Fn>
double seconds_to_unwind(weft::pool& p, Fn fn) {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    (void)p.run(fn);
  } catch (const unwind_bottom&) {
    return seconds_since(t0);
  }
  throw std::logic_error("unwind: the recursion returned without the exception thrown at its bottom");
}

int usage() {
  std::fputs("usage: weft-overhead ratio N RUNS [POLICY|value:POLICY...] | once elision|twocalls|POLICY|scope:POLICY|value:POLICY|spawn:POLICY N | steal LEAF REPS RUNS [POLICY...] | unwind DEPTH RUNS [POLICY...]\n", stderr);
  return 2;
}

int run(int argc, char** argv);

}  // namespace

// A bad policy name (weft::parse_policy's std::invalid_argument) or number (tools::number's) is
// reported with the usage line, not a terminate.
int main(int argc, char** argv) { return tools::main_with_usage("weft-overhead", usage, run, argc, argv); }

namespace {

int run(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string mode = argv[1];
  if (mode == "once" && argc == 4) {
    const std::string what = argv[2];
    const int n = tools::number("N", argv[3], 0, 50);
    long r;
    if (what == "elision") {
      r = fib_serial(n);
    } else if (what == "twocalls") {
      r = fib_twocalls(n);
    } else if (what.starts_with("scope:")) {  // scope:POLICY — fib written with spawn/sync
      weft::pool p(weft::config{.workers = 1, .policy = weft::parse_policy(what.substr(6))});
      r = p.run([&] { return tools::fib_scope(n); });
    } else if (what.starts_with("spawn:")) {  // spawn:POLICY — fib_value written with weft::spawn
      weft::pool p(weft::config{.workers = 1, .policy = weft::parse_policy(what.substr(6))});
      r = p.run([&] { return tools::fib_spawn(n); });
    } else if (what.starts_with("value:")) {  // value:POLICY — by-value captures, noexcept first branch
      weft::pool p(weft::config{.workers = 1, .policy = weft::parse_policy(what.substr(6))});
      r = p.run([&] { return tools::fib_value(n); });
    } else {
      weft::pool p(weft::config{.workers = 1, .policy = weft::parse_policy(what)});
      r = p.run([&] { return fib_weft(n); });
    }
    std::printf("fib(%d) = %ld\n", n, r);
    return 0;
  }
  if (mode == "ratio" && argc >= 4) {
    const int n = tools::number("N", argv[2], 0, 50);
    const int runs = tools::number("RUNS", argv[3], 1, 100000);
    const auto policies = policies_or_default(argc, argv, 4);
    // A policy given twice made two columns of one name, and a 2-worker column's speedup was taken
    // against the last 1-worker column of its name: the first pair's against the second's run.
    for (std::size_t i = 0; i < policies.size(); ++i)
      if (std::find(policies.begin(), policies.begin() + std::ptrdiff_t(i), policies[i]) != policies.begin() + std::ptrdiff_t(i))
        throw std::invalid_argument("policy \"" + policies[i] + "\" is given twice");
    const long expect = fib_serial(n);
    struct column {
      std::string name;
      std::unique_ptr<weft::pool> pool;
      std::vector<double> times;
      std::vector<double> steals, promotions;  // per run (the pool's counters)
      bool value_form = false;                  // tools::fib_value instead of fib_weft
    };
    std::vector<column> cols;
    cols.push_back({"serial-elision", nullptr, {}});
    cols.push_back({"two-calls", nullptr, {}});
    for (const auto& p : policies) {
      const bool value_form = p.starts_with("value:");
      const std::string policy = value_form ? p.substr(6) : p;
      for (unsigned w : {1u, 2u}) {
        if (policy == "serial" && w == 2) continue;
        cols.push_back({p + "@" + std::to_string(w),
                        std::make_unique<weft::pool>(weft::config{.workers = w, .policy = weft::parse_policy(policy)}),
                        {}, {}, {}, value_form});
      }
    }
    for (int r = 0; r < runs; ++r)
      for (auto& c : cols) {
        if (c.pool) c.pool->reset_stats();
        const auto t0 = std::chrono::steady_clock::now();
        const long v = c.pool ? c.pool->run([&] { return c.value_form ? tools::fib_value(n) : fib_weft(n); })
                       : c.name == "two-calls" ? fib_twocalls(n) : fib_serial(n);
        c.times.push_back(seconds_since(t0));
        if (c.pool) {
          const weft::counters k = c.pool->stats().total;
          c.steals.push_back(double(k.steals));
          c.promotions.push_back(double(k.promotions));
        }
        if (v != expect) {
          std::fprintf(stderr, "wrong result %ld from %s\n", v, c.name.c_str());
          return 3;
        }
      }
    const double ts = median(cols[0].times);
    const double t2 = median(cols[1].times);
    std::printf("fib(%d), %d alternating runs, medians; Ts = the serial elision as gcc compiles it, T2 = a\n"
                "version making exactly two calls per node; speedup = T(1 worker) / T(2 workers)\n"
                "%-18s %10s %8s %8s %10s %10s %12s\n", n, runs, "system", "time_s", "T/Ts", "T/T2", "speedup",
                "steals", "promotions");
    for (const auto& c : cols) {
      const double t = median(c.times);
      double speedup = 0;
      if (c.name.size() > 2 && c.name.substr(c.name.size() - 2) == "@2")
        for (const auto& o : cols)
          if (o.name == c.name.substr(0, c.name.size() - 1) + "1") speedup = median(o.times) / t;
      std::printf("%-18s %10.4f %8.3f %8.3f", c.name.c_str(), t, t / ts, t / t2);
      if (speedup > 0) std::printf(" %9.2fx", speedup);
      else std::printf(" %10s", "");
      if (c.pool) std::printf(" %10.0f %12.0f", median(c.steals), median(c.promotions));
      std::printf("\n");
    }
    return 0;
  }
  if (mode == "unwind" && argc >= 4) {
    const long depth = tools::number("DEPTH", argv[2], 1L, 10'000'000L);
    const int runs = tools::number("RUNS", argv[3], 1, 100000);
    const auto policies = policies_or_default(argc, argv, 4, {"serial", "lazy-bf", "wool", "ws"});
    std::printf("an exception through %ld nested joins against the same recursion as calls, 1 worker, %d alternating runs, medians\n",
                depth, runs);
    std::printf("%-10s %12s %12s %12s %12s %8s\n", "policy", "elision_s", "joins_s", "elision_us/l", "joins_us/l", "ratio");
    for (const auto& pol : policies) {
      weft::pool p(weft::config{.workers = 1, .policy = weft::parse_policy(pol)});
      std::vector<double> te, tj;
      for (int r = 0; r < runs; ++r) {
        te.push_back(seconds_to_unwind(p, [depth] { return unwind_elision(0, depth); }));
        tj.push_back(seconds_to_unwind(p, [depth] { return unwind_join(0, depth); }));
      }
      const double e = median(te), j = median(tj);
      std::printf("%-10s %12.4f %12.4f %12.3f %12.3f %8.2f\n", pol.c_str(), e, j, e / depth * 1e6, j / depth * 1e6, j / e);
    }
    return 0;
  }
  if (mode == "steal" && argc >= 5) {
    const int leaf_iters = tools::number("LEAF", argv[2], 0, 1'000'000'000);
    const int reps = tools::number("REPS", argv[3], 1, 1'000'000'000);
    const int runs = tools::number("RUNS", argv[4], 1, 100000);
    // serial runs on one worker: it has no steal to time (it was skipped without a word, so that
    // `steal ... serial` printed an empty table and exit 0)
    const auto policies = policies_or_default(argc, argv, 5, {"ws", "wool"});
    for (const auto& pol : policies)
      if (weft::parse_policy(pol) == weft::policy::serial)
        throw std::invalid_argument("steal: policy \"" + pol + "\" runs on one worker, there is no steal to time");
    // T_leaf: the leaf alone, on this thread.
    std::vector<double> leaf_times;
    std::printf("steal cost, WOOL Table III method: tree height 1, leaf %d iterations, %d reps, 2 workers\n", leaf_iters, reps);
    std::printf("%-8s %12s %12s %14s %10s\n", "policy", "T_rep_ns", "T_leaf_ns", "cost_ns/steal", "stolen");
    for (const auto& pol : policies) {
      weft::pool p(weft::config{.workers = 2, .policy = weft::parse_policy(pol)});
      std::vector<double> rep_ns, leaf_ns, stolen;
      std::uint64_t sink = 0;
      for (int r = 0; r < runs; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < reps; ++i) sink += leaf(i, leaf_iters);
        leaf_ns.push_back(seconds_since(t0) * 1e9 / reps);
        p.reset_stats();
        t0 = std::chrono::steady_clock::now();
        sink += p.run([&] {
          std::uint64_t acc = 0;
          for (int i = 0; i < reps; ++i) {
            auto [a, b] = weft::join([&] { return leaf(i, leaf_iters); }, [&] { return leaf(i + 1, leaf_iters); });
            acc += a + b;
          }
          return acc;
        });
        rep_ns.push_back(seconds_since(t0) * 1e9 / reps);
        stolen.push_back(double(p.stats().total.steals) / reps);
      }
      const double tr = median(rep_ns), tl = median(leaf_ns);
      // WOOL Table III's cost per steal is T_rep - T_leaf only where (nearly) every repetition was
      // stolen; otherwise it is a leaf's time run inline (heartbeat, adf: 0-55 % stolen), not a
      // steal's cost, so the column says n/a below 90 %.
      const double share = median(stolen);
      if (share >= 0.9)
        std::printf("%-8s %12.0f %12.0f %14.0f %9.0f%%\n", pol.c_str(), tr, tl, tr - tl, 100 * share);
      else
        std::printf("%-8s %12.0f %12.0f %14s %9.0f%%\n", pol.c_str(), tr, tl, "n/a", 100 * share);
      if (sink == 42) std::puts("");
    }
    return 0;
  }
  return usage();
}

}  // namespace
