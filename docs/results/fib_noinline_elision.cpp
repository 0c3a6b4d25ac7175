// fib(n) in README "Cheap joins"' value form against a serial fib that gcc may not inline into
// itself (docs/results/fine-grained.md, "fib(40) in the value form (stop 33)"): the two elisions differ
// by ~2x, and the T1/Ts <= 2 falls between them.  Not part of the build:
//   g++ -O3 -std=c++20 -Iinclude docs/results/fib_noinline_elision.cpp build/libweft.a -lboost_context -lpthread -o /tmp/fib_noinline
//   /tmp/fib_noinline 36
#include <weft/weft.hpp>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>

__attribute__((noinline)) std::uint64_t fib_serial(unsigned n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

std::uint64_t fib(unsigned n) {
  if (n < 2) return n;
  auto [x, y] = weft::join([n]() noexcept { return fib(n - 1); }, [n] { return fib(n - 2); });
  return x + y;
}

int main(int argc, char** argv) {
  unsigned n = argc > 1 ? std::atoi(argv[1]) : 36;
  weft::pool p(weft::config{.workers = 1});
  for (int r = 0; r < 5; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    auto s = fib_serial(n);
    auto t1 = std::chrono::steady_clock::now();
    auto w = p.run([&] { return fib(n); });
    auto t2 = std::chrono::steady_clock::now();
    std::printf("serial %.4f weft %.4f ratio %.2f (%lu %lu)\n", std::chrono::duration<double>(t1 - t0).count(),
                std::chrono::duration<double>(t2 - t1).count(),
                std::chrono::duration<double>(t2 - t1).count() / std::chrono::duration<double>(t1 - t0).count(), (unsigned long)s, (unsigned long)w);
  }
}
