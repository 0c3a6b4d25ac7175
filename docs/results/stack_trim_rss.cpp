// docs/results/stack-trim.md: RSS of deep runs before / after the trim: policy, workers, caller threads, depth.
#include <weft/weft.hpp>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
static long rss_mb() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  long a = 0, r = 0;
  if (std::fscanf(f, "%ld %ld", &a, &r) != 2) r = 0;
  std::fclose(f);
  return r * sysconf(_SC_PAGESIZE) >> 20;
}
static std::atomic<long> peak{0};
static long chain(long n) {
  if (n == 0) { long r = rss_mb(); long p = peak.load(); while (r > p && !peak.compare_exchange_weak(p, r)) {} return 0; }
  auto [a, b] = weft::join([&] { return chain(n - 1); }, [&] { return n & 1; });
  return a + b;
}
int main(int argc, char** argv) {
  const char* pol = argv[1];
  unsigned workers = std::atoi(argv[2]), callers = std::atoi(argv[3]);
  long depth = std::atol(argv[4]);
  weft::policy p{};
  for (auto q : weft::implemented_policies()) if (weft::to_string(q) == std::string(pol)) p = q;
  weft::pool pl(weft::config{.workers = workers, .policy = p});
  pl.run([] { return 0; });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  long before = rss_mb();
  std::vector<std::thread> ts;
  for (unsigned i = 0; i < callers; ++i) ts.emplace_back([&] { pl.run([&] { return chain(depth); }); });
  for (auto& t : ts) t.join();
  long after_run = rss_mb();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  long after_sleep = rss_mb();
  std::printf("%s workers=%u callers=%u depth=%ld: before %ld MB, peak (a chain's bottom) %ld MB, run returned %ld MB, 100 ms later %ld MB\n",
              pol, workers, callers, depth, before, peak.load(), after_run, after_sleep);
}
