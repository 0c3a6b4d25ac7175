// docs/results/stack-trim.md: Sleep/wake cycles of a 1-worker pool with shallow work: the trim's cost when nothing is trimmed.
// argv[1] policy, argv[2] cycles.  Each cycle: a run queued or lent, then 3 ms of nothing (the worker sleeps).
#include <weft/weft.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
static long fib(long n) { if (n < 2) return n; auto [a, b] = weft::join([&] { return fib(n - 1); }, [&] { return fib(n - 2); }); return a + b; }
int main(int argc, char** argv) {
  weft::policy p{};
  for (auto q : weft::implemented_policies()) if (weft::to_string(q) == std::string(argv[1])) p = q;
  const int cycles = std::atoi(argv[2]);
  weft::pool pl(weft::config{.workers = 1, .policy = p});
  long s = 0;
  for (int i = 0; i < cycles; ++i) {
    s += pl.run([] { return fib(20); });
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  // Serial-run latency (the serial context's check after every run) when argv[1] is serial.
  const auto t0 = std::chrono::steady_clock::now();
  const int n = 200000;
  for (int i = 0; i < n; ++i) s += pl.run([] { return 1; });
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n;
  std::printf("%s: %d sleep/wake cycles; back-to-back run: %.0f ns (s=%ld)\n", argv[1], cycles, ns, s);
}
