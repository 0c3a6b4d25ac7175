// weft-small-work — issue 9 item 2: a computation of about 1 us repeated many times inside one
// `run` must not get slower when workers are added (at most 1.2x the 1-worker time at 2 workers,
// and at 4, oversubscribed on a 2-core machine), under every adaptive policy.
//
//   weft-small-work KERNEL SIZE REPS RUNS [POLICY[:BACKOFF_US]...]
//       KERNEL fib:  fib(SIZE) written with a join per call (no cutoff), REPS times in one run.
//       KERNEL loop: parallel_reduce over SIZE iterations of a ~15 ns body, REPS times in one run.
//       Every (policy, workers) pool runs once per round, RUNS rounds (the configurations
//       alternate in a rotating order, so machine noise spreads over all of them); prints the median time per
//       repetition, its ratio to 1 worker, and the steals, promotions and steal backoffs (a thief's
//       waits after a theft too small to pay: config::steal_backoff) per repetition.  POLICY:US sets
//       the pool's steal_backoff (0 = off), so that the same policy with and without it runs side by
//       side in one invocation.  Default policies: the adaptive ones (lazy-df lazy-df2 lazy-bf
//       heartbeat wool ws-ap), each with the library's default backoff.
#include <weft/weft.hpp>

#include "args.hpp"
#include "programs.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// About 15 ns of dependent arithmetic per iteration, opaque to the optimizer.
std::uint64_t body(std::uint64_t i) {
  std::uint64_t x = i;
  for (int k = 0; k < 8; ++k) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    asm volatile("" : "+r"(x));
  }
  return x >> 60;
}

std::uint64_t loop_kernel(int size) {
  return weft::parallel_reduce(0, size, std::uint64_t(0), [](int i) { return body(std::uint64_t(i)); },
                               [](std::uint64_t a, std::uint64_t b) { return a + b; });
}

std::uint64_t loop_serial(int size) {
  std::uint64_t s = 0;
  for (int i = 0; i < size; ++i) s += body(std::uint64_t(i));
  return s;
}

struct config_row {
  std::string policy;
  unsigned workers;
  std::unique_ptr<weft::pool> pool;
  std::vector<double> ns_per_rep, steals, promotions, backoffs;
};

// POLICY or POLICY:US — the policy, and its config::steal_backoff (-1: the default).  A bad policy
// or number throws std::invalid_argument naming it (the pool checks the number's range).
std::pair<weft::policy, long> parse_column(const std::string& arg) {
  const auto colon = arg.find(':');
  if (colon == std::string::npos) return {weft::parse_policy(arg), -1};
  const std::string us = arg.substr(colon + 1);
  if (us.empty() || us.size() > 9 || us.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("\"" + arg + "\": the steal backoff after ':' must be a number of microseconds");
  return {weft::parse_policy(arg.substr(0, colon)), std::stol(us)};
}

}  // namespace

int run(int argc, char** argv);

int usage() {
  std::fputs("usage: weft-small-work fib|loop SIZE REPS RUNS [POLICY[:BACKOFF_US]...]\n", stderr);
  return 2;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::invalid_argument& e) {  // a bad number, policy name, backoff or pool setting
    std::fprintf(stderr, "weft-small-work: %s\n", e.what());
    return usage();
  }
}

int run(int argc, char** argv) {
  if (argc < 5) return usage();
  const std::string kernel = argv[1];
  if (kernel != "fib" && kernel != "loop") throw std::invalid_argument("KERNEL is fib or loop, got \"" + kernel + "\"");
  const int size = tools::number("SIZE", argv[2], 1, kernel == "fib" ? 50 : INT_MAX);
  const int reps = tools::number("REPS", argv[3], 1, INT_MAX);
  const int runs = tools::number("RUNS", argv[4], 1, 100000);
  std::vector<std::string> policies;
  for (int i = 5; i < argc; ++i) policies.emplace_back(argv[i]);
  if (policies.empty()) policies = {"lazy-df", "lazy-df2", "lazy-bf", "heartbeat", "wool", "ws-ap"};
  const std::uint64_t expect =
      std::uint64_t(reps) * (kernel == "fib" ? std::uint64_t(tools::fib_serial(size)) : loop_serial(size));

  std::vector<config_row> rows;
  for (const auto& p : policies) {
    const auto [policy, backoff_us] = parse_column(p);
    for (unsigned w : {1u, 2u, 4u}) {
      std::unique_ptr<weft::pool> pool;
      try {
        pool = std::make_unique<weft::pool>(
            weft::config{.workers = w, .policy = policy, .steal_backoff = std::chrono::microseconds(backoff_us)});
      } catch (const std::invalid_argument& e) {
        // The pool names its field; the user typed a column (stop 51's config hunt).
        if (backoff_us < 0) throw;
        throw std::invalid_argument("\"" + p + "\": the steal backoff after ':' is out of range (" + e.what() + ")");
      }
      rows.push_back({p, w, std::move(pool), {}, {}, {}, {}});
    }
  }
  // The serial time of one repetition, for scale.
  std::vector<double> serial_ns;
  for (int r = 0; r < runs; ++r) {
    std::uint64_t sink = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i)
      sink += kernel == "fib" ? std::uint64_t(tools::fib_serial(size)) : loop_serial(size);
    serial_ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / reps);
    if (sink != expect) {
      std::fprintf(stderr, "weft-small-work: the serial loop's sum %llu differs from the first run's %llu\n",
                   (unsigned long long)sink, (unsigned long long)expect);
      return 3;
    }
    for (std::size_t k = 0; k < rows.size(); ++k) {
      auto& row = rows[(k + std::size_t(r)) % rows.size()];  // a rotating order: no position bias
      row.pool->reset_stats();
      const auto t1 = std::chrono::steady_clock::now();
      const std::uint64_t got = row.pool->run([&] {
        std::uint64_t acc = 0;
        for (int i = 0; i < reps; ++i) acc += kernel == "fib" ? std::uint64_t(tools::fib(size)) : loop_kernel(size);
        return acc;
      });
      row.ns_per_rep.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t1).count() / reps);
      if (got != expect) {
        std::fprintf(stderr, "weft-small-work: wrong result %llu from %s@%u\n", (unsigned long long)got, row.policy.c_str(), row.workers);
        return 3;
      }
      const weft::stats s = row.pool->stats();
      row.steals.push_back(double(s.total.steals) / reps);
      row.promotions.push_back(double(s.total.promotions) / reps);
      row.backoffs.push_back(double(s.total.steal_backoffs) / reps);
    }
  }
  std::printf("small work: %s(%d) x %d repetitions in one run, %d rounds, medians; serial %.0f ns per repetition\n",
              kernel.c_str(), size, reps, runs, median(serial_ns));
  std::printf("%-14s %8s %8s %8s %7s %7s %9s %9s %9s %9s %9s %9s %8s\n", "policy", "T1_ns", "T2_ns", "T4_ns", "T2/T1",
              "T4/T1", "steals@2", "promo@2", "waits@2", "steals@4", "promo@4", "waits@4", "backoff");
  for (std::size_t i = 0; i + 2 < rows.size(); i += 3) {
    // A policy with no stealing workers (serial, adf, dfd, fifo) has no backoff: its config keeps
    // the unset -1, which the column printed as "-1us".
    const long long backoff_us = rows[i + 1].pool->config().steal_backoff.count();
    const std::string backoff = backoff_us < 0 ? "-" : std::to_string(backoff_us) + "us";
    const double t1 = median(rows[i].ns_per_rep), t2 = median(rows[i + 1].ns_per_rep), t4 = median(rows[i + 2].ns_per_rep);
    std::printf("%-14s %8.0f %8.0f %8.0f %7.2f %7.2f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %8s\n", rows[i].policy.c_str(), t1,
                t2, t4, t2 / t1, t4 / t1, median(rows[i + 1].steals), median(rows[i + 1].promotions),
                median(rows[i + 1].backoffs), median(rows[i + 2].steals), median(rows[i + 2].promotions),
                median(rows[i + 2].backoffs), backoff.c_str());
  }
  return 0;
}
