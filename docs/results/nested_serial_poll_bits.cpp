// Build (from the repository root, after the Release build): g++ -std=c++20 -O3 -DWEFT_TLS_LOCAL_EXEC -Iinclude
//   docs/results/nested_serial_poll_bits.cpp build/libweft.a -lboost_context -lpthread -o /tmp/nest && /tmp/nest 30 7
// Stop 43, AMD EPYC VM at load ~7, two runs each: before a nested run put a thief's notify
// aside, the nested run took 1.75x / 2.08x the lone run's median; after, 1.06x / 0.89x.
// fib(N) through a serial pool, run alone and from inside a 2-worker lazy-bf job whose other
// worker keeps stealing (so its thieves set `notify` in the calling thread's poll word).
#include <weft/weft.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
static long fib(int n) { if (n < 2) return n; auto [a, b] = weft::join([=] { return fib(n - 1); }, [=] { return fib(n - 2); }); return a + b; }
int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 30, reps = argc > 2 ? std::atoi(argv[2]) : 5;
  weft::pool serial(weft::config{.workers = 1, .policy = weft::policy::serial});
  weft::pool outer(weft::config{.workers = 2, .policy = weft::policy::lazy_bf});
  auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  std::vector<double> alone, nested;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    long x = serial.run([&] { return fib(n); });
    auto t1 = std::chrono::steady_clock::now();
    alone.push_back(secs(t0, t1));
    double in = 0;
    long y = outer.run([&] {
      auto [a, b] = weft::join([&] { auto s = std::chrono::steady_clock::now(); long v = serial.run([&] { return fib(n); }); in = secs(s, std::chrono::steady_clock::now()); return v; },
                               [&] { return fib(n - 5); });
      return a + b;
    });
    nested.push_back(in);
    if (x <= 0 || y <= 0) return 1;
  }
  std::sort(alone.begin(), alone.end()); std::sort(nested.begin(), nested.end());
  std::printf("fib(%d) via serial pool: alone median %.1f ms, nested in lazy-bf job median %.1f ms, ratio %.2f\n", n,
              1e3 * alone[reps / 2], 1e3 * nested[reps / 2], nested[reps / 2] / alone[reps / 2]);
}
