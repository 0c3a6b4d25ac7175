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
//   weft-tau estimate T_S T'_S C ...     (the same estimate from one's own medians, a triple a
//                                         program: seconds without promotions, with, promotions)
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
#include <optional>
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
  std::fputs("usage: weft-tau [RUNS >= 1] [SMALL_N_US >= 1] [pin]\n"
             "       weft-tau estimate T_S T'_S C [T_S T'_S C ...]\n", stderr);
  return 2;
}

// One program's medians: T without promotions, T' with C of them.
struct measured {
  std::string name;
  double T, T2, C;
};

// tau = (T' - T) / C, in microseconds; none where it is not measured: no promotion (C = 0), or the
// runs with promotions no slower than those without (T' <= T), where the machine's noise exceeded
// the promotions' whole cost (stop 51's commands hunt read tau = -24,647 us from 4 promotions at
// load 5, and the line below then recommended a negative N).
std::optional<double> tau_us(const measured& m) {
  if (m.C <= 0 || m.T2 <= m.T) return std::nullopt;
  return (m.T2 - m.T) / m.C * 1e6;
}

// The table, and the recommendation from the median tau of the programs that measured one; exit 1
// (and why) where none did.
int report(const std::vector<measured>& rows, const std::string& where, const char* no_promotion_hint) {
  std::printf("%-12s %10s %10s %12s %9s\n", "program", "T_s", "T'_s", "C", "tau_us");
  std::vector<double> taus;
  bool promoted = false;
  for (const measured& m : rows) {
    promoted = promoted || m.C > 0;
    if (const auto tau = tau_us(m)) {
      taus.push_back(*tau);
      std::printf("%-12s %10.4f %10.4f %12.0f %9.3f\n", m.name.c_str(), m.T, m.T2, m.C, *tau);
    } else {
      std::printf("%-12s %10.4f %10.4f %12.0f %9s\n", m.name.c_str(), m.T, m.T2, m.C, "n/a");
    }
  }
  if (taus.empty() && !promoted) {
    std::fprintf(stderr, "weft-tau: no promotion in the median run of any program %s: tau is not measured; "
                 "%s\n", where.c_str(), no_promotion_hint);
    return 1;
  }
  if (taus.empty()) {
    std::fprintf(stderr, "weft-tau: the runs with promotions were no slower than those without (T' <= T) %s: "
                 "the machine's noise exceeds the promotions' cost and tau is not measured; measure on a quiet "
                 "machine (HB §5.1 runs the worker alone on its core), or with more RUNS\n", where.c_str());
    return 1;
  }
  const double tau = median(taus);
  std::printf("tau = %.3f us (median over the programs that measured one); recommended heartbeat N = 20 tau = %.1f us\n",
              tau, 20 * tau);
  return 0;
}

int run(int argc, char** argv);
int estimate(int argc, char** argv);

int run_or_estimate(int argc, char** argv) {
  return argc > 1 && std::string(argv[1]) == "estimate" ? estimate(argc, argv) : run(argc, argv);
}

}  // namespace

// A bad argument (tools::number's std::invalid_argument) is reported with the usage line.
int main(int argc, char** argv) { return tools::main_with_usage("weft-tau", usage, run_or_estimate, argc, argv); }

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
  std::vector<measured> rows;
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
    rows.push_back({p.name, median(t), median(t2), median(c)});
  }
  return report(rows, "at N = " + std::to_string(small_us) + " us", "give a smaller SMALL_N_US");
}

// `weft-tau estimate T T' C ...`: the same estimate from medians measured elsewhere (a program of
// one's own, timed by hand), one triple per program.
int estimate(int argc, char** argv) {
  if (argc < 5 || (argc - 2) % 3 != 0)
    throw std::invalid_argument("estimate takes triples T_S T'_S C (seconds, seconds, promotions)");
  std::vector<measured> rows;
  for (int i = 2; i + 2 < argc; i += 3) {
    const std::string name = "given " + std::to_string(rows.size() + 1);
    rows.push_back({name, tools::decimal("T_S", argv[i], 0.0, 1e9), tools::decimal("T'_S", argv[i + 1], 0.0, 1e9),
                    double(tools::number<long long>("C", argv[i + 2], 0, 1'000'000'000'000'000))});
  }
  return report(rows, "in the given figures", "a run needs promotions to measure their cost");
}

}  // namespace
