// weft-tau — HB §5.1's protocol for tau, the cost of one promotion, on this machine:
// single-worker runs of a parallel program with a huge heartbeat period N (no promotions) and with
// a tiny one (many); tau = (T' - T) / C, where C is the number of promotions of the second run.
// The recommended period is N = 20 tau (overheads below 5%: HB Theorem 2, W <= (1 + tau/N) w).
//
// As in HB's protocol, the worker runs alone on its core; the heartbeat thread runs on another
// (with `pin`, the whole process is pinned to one CPU, so the beats' wake-ups compete with the
// worker, as on a machine where every core runs a worker; the scheduler then delays most beats and
// the estimate mixes the timer's cost into tau).
//
//   weft-tau [RUNS] [SMALL_N_US] [pin]   (default 7 alternating runs of each configuration,
//                                         medians; SMALL_N_US default 1)
#include <weft/weft.hpp>

#include "args.hpp"
#include "programs.hpp"

#include <sched.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using tools::board;
using tools::fib;
using tools::queens;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

int usage() {
  std::fputs("usage: weft-tau [RUNS >= 1] [SMALL_N_US >= 1] [pin]\n", stderr);
  return 2;
}

int run(int argc, char** argv);

}  // namespace

// A bad argument (tools::number's std::invalid_argument) is reported with the usage line.
int main(int argc, char** argv) { return tools::main_with_usage("weft-tau", usage, run, argc, argv); }

namespace {

int run(int argc, char** argv) {
  const int runs = tools::number_or(argc, argv, 1, "RUNS", 7, 1, 100000);
  const int small_us = tools::number_or(argc, argv, 2, "SMALL_N_US", 1, 1, 100'000'000);
  if (argc > 4 || (argc > 3 && std::string(argv[3]) != "pin"))
    throw std::invalid_argument("the third argument, if any, is \"pin\"");
  const bool pin = argc > 3;
  if (pin) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) std::perror("weft-tau: sched_setaffinity");
  }
  struct program {
    const char* name;
    std::function<long()> body;
  };
  const std::vector<program> programs = {
      {"fib(32)", [] { return fib(32); }},
      {"nqueens(11)", [] { return queens(11, board{}, 0); }},
  };
  weft::pool huge(weft::config{.workers = 1, .policy = weft::policy::heartbeat, .heartbeat = std::chrono::microseconds(10'000'000)});
  weft::pool tiny(weft::config{.workers = 1, .policy = weft::policy::heartbeat, .heartbeat = std::chrono::microseconds(small_us)});
  std::printf("HB §5.1 protocol, 1 worker%s, N = 10^7 us vs %d us, %d alternating runs, medians\n",
              pin ? " and its heartbeat thread on one CPU" : "", small_us, runs);
  std::printf("%-12s %10s %10s %12s %9s\n", "program", "T_s", "T'_s", "C", "tau_us");
  std::vector<double> taus;
  for (const auto& p : programs) {
    std::vector<double> t, t2, c;
    for (int r = 0; r < runs; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      const long a = huge.run(p.body);
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      tiny.reset_stats();
      t0 = std::chrono::steady_clock::now();
      const long b = tiny.run(p.body);
      t2.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      c.push_back(double(tiny.stats().total.promotions));
      if (a != b) {
        std::fprintf(stderr, "results differ: %ld vs %ld\n", a, b);
        return 3;
      }
    }
    const double T = median(t), T2 = median(t2), C = median(c);
    // A program with no promotion at N measures no tau: it was counted as tau = 0, and with every
    // program so (N past the runs' length) the line below recommended "N = 20 tau = 0.0 us".
    if (C > 0) {
      taus.push_back((T2 - T) / C * 1e6);
      std::printf("%-12s %10.4f %10.4f %12.0f %9.3f\n", p.name, T, T2, C, taus.back());
    } else {
      std::printf("%-12s %10.4f %10.4f %12.0f %9s\n", p.name, T, T2, C, "n/a");
    }
  }
  if (taus.empty()) {
    std::fprintf(stderr, "weft-tau: no promotion in the median run of any program at N = %d us: tau is not measured; "
                 "give a smaller SMALL_N_US\n", small_us);
    return 1;
  }
  const double tau = median(taus);
  std::printf("tau = %.3f us (median over the programs with promotions); recommended heartbeat N = 20 tau = %.1f us\n", tau, 20 * tau);
  return 0;
}

}  // namespace
