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

#include "programs.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
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

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 32;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 7;
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
      if (a != b) return 3;
    }
    const double tp = median(plain), tt = median(tsc);
    std::printf("tsc poll: fib(%d) 1 worker (lazy-bf), %d alternating runs: %.4f s without, %.4f s with "
                "a cycle-counter check per join: +%.1f%%, %.2f ns per poll\n",
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
    std::printf("flag (timer thread), N = %d us: 1 worker busy %.2f s wall; process CPU %.2f s: the timer "
                "thread used about %.1f%% of a core; %llu promotions = %.0f%% of wall/N beats\n",
                us, wall, cpu, 100 * (cpu - wall) / wall, (unsigned long long)s.promotions,
                100.0 * double(s.promotions) / (wall * 1e6 / us));
    if (r == 42) std::puts("");
  }
  return 0;
}
