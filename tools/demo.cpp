#include <weft/weft.hpp>
#include <cstdio>
int fib(int n) {
  if (n < 2) return n;
  auto [a, b] = weft::join([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
  return a + b;
}
int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 30;
  for (auto pol : {"serial", "ws", "wool"}) for (unsigned w : {1u, 2u}) {
    if (std::string(pol) == "serial" && w > 1) continue;
    weft::pool p(weft::config{.workers = w, .policy = weft::parse_policy(pol)});
    auto r = p.run([&] { return fib(n); });
    auto s = p.stats().total;
    std::printf("%s %u: fib=%d joins=%lu prom=%lu steals=%lu\n", pol, w, r, (unsigned long)s.joins, (unsigned long)s.promotions, (unsigned long)s.steals);
  }
}
