// weft-demo — fib and nqueens under every policy, serial elision beside them (the main job until
// the benchmark harness exists; now a quick smoke run).
#include <weft/weft.hpp>

#include "programs.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

using tools::board;
using tools::fib;
using tools::fib_serial;
using tools::queens;
using tools::queens_serial;

template <class F>
double seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int nf = argc > 1 ? std::atoi(argv[1]) : 30;
  const int nq = argc > 2 ? std::atoi(argv[2]) : 10;
  long fs = 0, qs = 0;
  const double tfs = seconds([&] { fs = fib_serial(nf); });
  const double tqs = seconds([&] { qs = queens_serial(nq, board{}, 0); });
  std::printf("fib(%d) and nqueens(%d); times in seconds, T/Ts against the serial elision\n", nf, nq);
  std::printf("%-10s %3s %9s %7s %9s %7s %11s %9s\n", "policy", "P", "fib", "T/Ts", "nqueens", "T/Ts", "promotions", "steals");
  std::printf("%-10s %3d %9.4f %7.2f %9.4f %7.2f\n", "elision", 1, tfs, 1.0, tqs, 1.0);
  for (weft::policy pol : weft::implemented_policies())
    for (unsigned w : {1u, 2u}) {
      if (pol == weft::policy::serial && w > 1) continue;
      weft::pool p(weft::config{.workers = w, .policy = pol});
      long f = 0, q = 0;
      const double tf = seconds([&] { f = p.run([&] { return fib(nf); }); });
      const double tq = seconds([&] { q = p.run([&] { return queens(nq, board{}, 0); }); });
      const auto s = p.stats().total;
      if (f != fs || q != qs) {
        std::fprintf(stderr, "wrong result under %s: fib %ld (want %ld), nqueens %ld (want %ld)\n",
                     std::string(weft::to_string(pol)).c_str(), f, fs, q, qs);
        return 1;
      }
      std::printf("%-10s %3u %9.4f %7.2f %9.4f %7.2f %11llu %9llu\n", std::string(weft::to_string(pol)).c_str(), w, tf,
                  tf / tfs, tq, tq / tqs, (unsigned long long)s.promotions, (unsigned long long)s.steals);
    }
}
