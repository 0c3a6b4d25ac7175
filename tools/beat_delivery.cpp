// weft-beat-delivery — the heartbeat's achieved rate under each delivery (issue 12 item 4, issue 9):
// `spare` (the default: the timer thread while a core runs no awake worker, idle workers otherwise;
// heartbeat.cpp), `thread` (the timer thread sends every beat) and `signal` (per-worker POSIX
// timers, beat_signal.cpp), for each worker count and period N.  Each run computes fib(27) over and
// over for about 0.3 s of wall time inside one pool::run under the heartbeat policy; the figures are
// medians over RUNS runs, the deliveries alternating run by run:
//   requested   beats sent to the workers (summed), per second of the run
//   delivered   beats that reached a poll (each one promotes), per second of the run
//   deliv/req   delivered / requested
//   achieved    delivered per second per worker against the target 1e6/N
//   fib(27) ms  the time of one fib(27) (what a beat costs shows here)
//
//   weft-beat-delivery [RUNS] [WORKERS,...] [N_US,...]
#include <weft/weft.hpp>

#include "args.hpp"
#include "programs.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct sample {
  double requested_per_s, delivered_per_s, ratio, achieved, fib_ms;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// A comma-separated list of integers in lo..hi (tools::number's rule for each).
std::vector<int> list(const char* name, const char* arg, std::vector<int> fallback, int lo, int hi) {
  if (arg == nullptr) return fallback;
  std::vector<int> out;
  std::stringstream ss(arg);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(tools::number(name, item, lo, hi));
  if (out.empty()) throw std::invalid_argument(std::string(name) + ": an empty list");
  return out;
}

int usage() {
  std::fputs("usage: weft-beat-delivery [RUNS] [WORKERS,...] [N_US,...]\n", stderr);
  return 2;
}

sample one_run(weft::heartbeat_delivery d, unsigned workers, int n_us) {
  using clock = std::chrono::steady_clock;
  weft::pool p(weft::config{.workers = workers, .policy = weft::policy::heartbeat,
                            .heartbeat = std::chrono::microseconds(n_us), .heartbeat_delivery = d});
  p.run([] { return tools::fib(20); });  // threads started and warm
  p.reset_stats();
  long fibs = 0;
  const auto t0 = clock::now();
  const long sum = p.run([&] {
    long s = 0;
    while (clock::now() - t0 < std::chrono::milliseconds(300)) {
      s += tools::fib(27);
      ++fibs;
    }
    return s;
  });
  const double secs = std::chrono::duration<double>(clock::now() - t0).count();
  if (sum != fibs * tools::fib_serial(27)) {
    std::fprintf(stderr, "weft-beat-delivery: wrong result: %ld for %ld fib(27)s\n", sum, fibs);
    std::exit(3);
  }
  const weft::counters c = p.stats().total;
  const double req = double(c.heartbeats_requested), got = double(c.heartbeats_delivered);
  return {req / secs, got / secs, req > 0 ? got / req : 0, got / secs / workers / (1e6 / n_us),
          1e3 * secs / double(fibs)};
}

int run(int argc, char** argv);

}  // namespace

// A bad argument (tools::number) or pool setting (a WEFT_* variable) is reported with the usage
// line, not a terminate.
int main(int argc, char** argv) { return tools::main_with_usage("weft-beat-delivery", usage, run, argc, argv); }

namespace {

int run(int argc, char** argv) {
  if (argc > 4) throw std::invalid_argument("at most three arguments");
  const int runs = tools::number_or(argc, argv, 1, "RUNS", 5, 1, 100000);
  const std::vector<int> workers = list("WORKERS", argc > 2 ? argv[2] : nullptr, {1, 2, 4}, 1, 1024);
  const std::vector<int> periods = list("N_US", argc > 3 ? argv[3] : nullptr, {20, 40, 100}, 1, 100'000'000);
  const weft::heartbeat_delivery deliveries[] = {weft::heartbeat_delivery::spare, weft::heartbeat_delivery::thread,
                                                 weft::heartbeat_delivery::signal};
  const char* const names[] = {"spare", "thread", "signal"};
  constexpr int kinds = 3;
  std::printf("| delivery | workers | N (us) | target/s/worker | requested/s | delivered/s | deliv/req | achieved | fib(27) ms |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (int w : workers)
    for (int n : periods) {
      std::vector<sample> s[kinds];
      for (int r = 0; r < runs; ++r)
        for (int d = 0; d < kinds; ++d) s[d].push_back(one_run(deliveries[d], unsigned(w), n));
      for (int d = 0; d < kinds; ++d) {
        auto med = [&](double sample::*f) {
          std::vector<double> v;
          for (const sample& x : s[d]) v.push_back(x.*f);
          return median(v);
        };
        std::printf("| %s | %d | %d | %.0f | %.0f | %.0f | %.2f | %.0f%% | %.2f |\n", names[d], w, n,
                    1e6 / n, med(&sample::requested_per_s), med(&sample::delivered_per_s), med(&sample::ratio),
                    100 * med(&sample::achieved), med(&sample::fib_ms));
        std::fflush(stdout);
      }
    }
  return 0;
}

}  // namespace
