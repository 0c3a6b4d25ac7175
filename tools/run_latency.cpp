// weft-run-latency — how long `pool.run` of a trivial job takes from a thread outside the pool
// (issue 9 item 3: median <= 20 us on an idle pool).
//
//   weft-run-latency RUNS GAP_US [POLICY [WORKERS]]
//       RUNS calls of pool.run([] { return 1; }) from the main thread, each after GAP_US
//       microseconds of sleep (a gap above ~1 ms lets the workers fall asleep first: the "idle
//       pool" case).  Prints the median, the 10th and 90th percentiles, in microseconds.
#include <weft/weft.hpp>

#include "args.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::size_t(q * double(v.size() - 1) + 0.5)];
}

int usage() {
  std::fputs("usage: weft-run-latency RUNS GAP_US [POLICY [WORKERS]]\n", stderr);
  return 2;
}

int run(int argc, char** argv);

}  // namespace

// A bad number (tools::number), policy name or pool setting (weft::parse_policy's and the pool's
// std::invalid_argument: serial takes one worker) is reported with the usage line, not a terminate.
int main(int argc, char** argv) { return tools::main_with_usage("weft-run-latency", usage, run, argc, argv); }

namespace {

int run(int argc, char** argv) {
  if (argc < 3 || argc > 5) return usage();
  const int runs = tools::number("RUNS", argv[1], 1, 10'000'000);
  const int gap_us = tools::number("GAP_US", argv[2], 0, 10'000'000);
  const std::string pol = argc > 3 ? argv[3] : "lazy-bf";
  const unsigned workers = tools::number_or(argc, argv, 4, "WORKERS", 2u, 1u, 1024u);
  weft::pool p(weft::config{.workers = workers, .policy = weft::parse_policy(pol)});
  p.run([] { return 0; });  // the threads are up and have run once
  std::vector<double> us;
  us.reserve(std::size_t(runs));
  long sink = 0;
  for (int r = 0; r < runs; ++r) {
    std::this_thread::sleep_for(std::chrono::microseconds(gap_us));
    const auto t0 = std::chrono::steady_clock::now();
    sink += p.run([] { return 1; });
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  if (sink != runs) {
    std::fprintf(stderr, "weft-run-latency: wrong result %ld\n", sink);
    return 3;
  }
  std::printf("pool.run latency, %s, %u workers, %d runs, %d us apart: median %.1f us, p10 %.1f us, p90 %.1f us\n",
              pol.c_str(), workers, runs, gap_us, percentile(us, 0.5), percentile(us, 0.1), percentile(us, 0.9));
  return 0;
}

}  // namespace
