// Uses the installed headers and library: every entry point of the public API once.
#include <weft/weft.hpp>

#include <cstdio>
#include <vector>

static long fib(int n) {
  if (n < 2) return n;
  auto [a, b] = weft::join([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
  return a + b;
}

int main() {
  int failures = 0;
  for (weft::policy p : weft::implemented_policies()) {
    weft::pool pool(weft::config{.workers = p == weft::policy::serial ? 1u : 2u, .policy = p});
    const long f = pool.run([] { return fib(20); });
    const long s = pool.run([] {
      return weft::parallel_reduce(0, 1000, 0L, [](int i) { return long(i); }, [](long a, long b) { return a + b; });
    });
    std::vector<int, weft::allocator<int>> v(100, 0);
    pool.run([&] {
      weft::parallel_for(std::size_t(0), v.size(), [&](std::size_t i) { v[i] = int(i); });
      weft::scope sc;
      sc.spawn([&] { v[0] = 1; });
    });
    const bool ok = f == 6765 && s == 499500 && v[0] == 1 && v[99] == 99 && pool.stats().total.joins > 0;
    std::printf("%s: %s\n", std::string(weft::to_string(p)).c_str(), ok ? "ok" : "FAILED");
    failures += !ok;
  }
  std::printf("global pool: %u workers, fib(15) = %ld\n", weft::pool::global().size(), fib(15));
  return failures == 0 && fib(15) == 610 ? 0 : 1;
}
