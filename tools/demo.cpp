// weft-demo — fib and nqueens under every policy, serial elision beside them (the main job until
// the benchmark harness exists; now a quick smoke run).
//
//   weft-demo [FIB_N] [QUEENS_N]   (default 30 and 10)
//
// A configuration whose run throws (fifo ran out of fiber stacks on fib past ~24 before the fork limit) gets a
// "failed" row, its message on stderr, and the others still run; the exit status is then 1.
#include <weft/weft.hpp>

#include "args.hpp"
#include "programs.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
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

int usage() {
  std::fputs("usage: weft-demo [FIB_N 0..50] [QUEENS_N 1..16]\n", stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int nf = 0, nq = 0;
  try {
    if (argc > 3) throw std::invalid_argument("at most two arguments");
    nf = tools::number_or(argc, argv, 1, "FIB_N", 30, 0, 50);
    nq = tools::number_or(argc, argv, 2, "QUEENS_N", 10, 1, 16);  // tools::board holds 16 queens
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "weft-demo: %s\n", e.what());
    return usage();
  }
  int failed = 0;
  long fs = 0, qs = 0;
  const double tfs = seconds([&] { fs = fib_serial(nf); });
  const double tqs = seconds([&] { qs = queens_serial(nq, board{}, 0); });
  std::printf("fib(%d) and nqueens(%d); times in seconds, T/Ts against the serial elision\n", nf, nq);
  std::printf("%-10s %3s %9s %7s %9s %7s %11s %9s\n", "policy", "P", "fib", "T/Ts", "nqueens", "T/Ts", "promotions", "steals");
  std::printf("%-10s %3d %9.4f %7.2f %9.4f %7.2f\n", "elision", 1, tfs, 1.0, tqs, 1.0);
  for (weft::policy pol : weft::implemented_policies())
    for (unsigned w : {1u, 2u}) {
      if (pol == weft::policy::serial && w > 1) continue;
      const std::string name(weft::to_string(pol));
      long f = 0, q = 0;
      double tf = 0, tq = 0;
      weft::counters s{};
      try {
        weft::pool p(weft::config{.workers = w, .policy = pol});
        tf = seconds([&] { f = p.run([&] { return fib(nf); }); });
        tq = seconds([&] { q = p.run([&] { return queens(nq, board{}, 0); }); });
        s = p.stats().total;
      } catch (const std::exception& e) {
        std::printf("%-10s %3u failed: see stderr\n", name.c_str(), w);
        std::fflush(stdout);
        std::fprintf(stderr, "weft-demo: %s, %u worker%s: %s\n", name.c_str(), w, w > 1 ? "s" : "", e.what());
        ++failed;
        continue;
      }
      if (f != fs || q != qs) {
        std::fprintf(stderr, "wrong result under %s: fib %ld (want %ld), nqueens %ld (want %ld)\n",
                     name.c_str(), f, fs, q, qs);
        return 1;
      }
      std::printf("%-10s %3u %9.4f %7.2f %9.4f %7.2f %11llu %9llu\n", name.c_str(), w, tf,
                  tf / tfs, tq, tq / tqs, (unsigned long long)s.promotions, (unsigned long long)s.steals);
    }
  if (failed) std::fprintf(stderr, "weft-demo: %d configuration%s failed\n", failed, failed > 1 ? "s" : "");
  return failed ? 1 : 0;
}
