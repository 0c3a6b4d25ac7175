// weft-beat-options — what a heartbeat costs when it does not fire, for the two ways to notice one
// (issue 3: "measure the options and document the choice"):
//   flag:  a timer thread sets a bit in each worker's poll word; a poll is the load and branch every
//          join already does, so a beat that does not fire costs nothing extra.  Measured: the
//          timer thread's own CPU time per second of run (it competes with the workers for cores).
//   tsc:   each poll reads the cycle counter and compares it with a deadline (HB §4's software
//          polling of the hardware counter).  Measured: fib(N) with that check added to every join,
//          against the same fib without it, 1 worker, alternating runs, medians.
//
//   weft-beat-options [N] [RUNS]
#include <weft/weft.hpp>
#include <x86intrin.h>

#include "args.hpp"
#include "programs.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <vector>

namespace {

using tools::fib;

volatile std::uint64_t deadline = ~0ull;  // never reached: the beat does not fire
long beats_seen = 0;

long fib_tsc(int n) {
  if (n < 2) return n;
  if (__rdtsc() > deadline) [[unlikely]] ++beats_seen;  // the cycle-counter poll
  auto [a, b] = weft::join([&] { return fib_tsc(n - 1); }, [&] { return fib_tsc(n - 2); });
  return a + b;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int usage() {
  std::fputs("usage: weft-beat-options [N 4..50] [RUNS >= 1]\n", stderr);
  return 2;
}

int run(int argc, char** argv);

}  // namespace

// A bad argument (tools::number) or pool setting (a WEFT_* variable) is reported with the usage
// line, not a terminate.
int main(int argc, char** argv) { return tools::main_with_usage("weft-beat-options", usage, run, argc, argv); }

namespace {

int run(int argc, char** argv) {
  if (argc > 3) throw std::invalid_argument("at most two arguments");
  const int n = tools::number_or(argc, argv, 1, "N", 32, 4, 50);  // the flag runs take fib(N - 4)
  const int runs = tools::number_or(argc, argv, 2, "RUNS", 7, 1, 100000);
  std::uint64_t joins = 0;
  {
    weft::pool p(weft::config{.workers = 1, .policy = weft::policy::lazy_bf});
    std::vector<double> plain, tsc;
    for (int r = 0; r < runs; ++r) {
      double t0 = wall_seconds();
      const long a = p.run([&] { return fib(n); });
      plain.push_back(wall_seconds() - t0);
      p.reset_stats();
      t0 = wall_seconds();
      const long b = p.run([&] { return fib_tsc(n); });
      tsc.push_back(wall_seconds() - t0);
      joins = p.stats().total.joins;
      if (a != b) {
        std::fprintf(stderr, "weft-beat-options: results differ: %ld vs %ld\n", a, b);
        return 3;
      }
    }
    const double tp = median(plain), tt = median(tsc);
    std::printf("tsc poll: fib(%d) 1 worker (lazy-bf), %d alternating runs: %.4f s without, %.4f s with "
                "a cycle-counter check per join: %+.1f%%, %.2f ns per poll\n",
                n, runs, tp, tt, 100 * (tt / tp - 1), (tt - tp) / double(joins) * 1e9);
  }
  for (int us : {30, 100}) {
    weft::pool p(weft::config{.workers = 1, .policy = weft::policy::heartbeat, .heartbeat = std::chrono::microseconds(us)});
    p.run([&] { return fib(20); });
    const double c0 = cpu_seconds(), w0 = wall_seconds();
    long r = 0;
    while (wall_seconds() - w0 < 1.0) r += p.run([&] { return fib(n - 4); });
    const double cpu = cpu_seconds() - c0, wall = wall_seconds() - w0;
    const auto s = p.stats().total;
    // The timer thread's share is the process's CPU time beyond the busy worker's, the worker's
    // taken to be the wall time: that holds when the worker has a core to itself.  On a loaded
    // machine it is descheduled part of the time, the process's CPU can fall below the wall time,
    // and the difference then measures the load, not the timer: the share is printed as n/a.
    char share[32] = "n/a";
    if (cpu >= wall) std::snprintf(share, sizeof share, "about %.1f%%", 100 * (cpu - wall) / wall);
    std::printf("flag (timer thread), N = %d us: 1 worker busy %.2f s wall; process CPU %.2f s: the timer "
                "thread used %s of a core%s; %llu promotions = %.0f%% of wall/N beats\n",
                us, wall, cpu, share, cpu >= wall ? "" : " (process CPU < wall: the worker was descheduled)",
                (unsigned long long)s.promotions, 100.0 * double(s.promotions) / (wall * 1e6 / us));
    if (r == 42) std::puts("");
  }
  return 0;
}

}  // namespace
