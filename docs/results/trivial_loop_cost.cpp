// The cost per iteration of a loop whose body is a few instructions, written with no grain, under
// each policy (README "Loops": ws, wool, adf, dfd and fifo split loops down to single iterations).
// Build against a Release build of the library (build/):
//   g++ -std=c++20 -O3 -Iinclude docs/results/trivial_loop_cost.cpp build/libweft.a \
//       -lboost_context -pthread -o /tmp/trivial_loop_cost
//   for p in serial lazy-bf heartbeat ws-ap wool ws adf; do /tmp/trivial_loop_cost $p 1 100000000; done
// (adf, dfd: use 10^6 iterations; fifo runs out of fiber stacks past ~30,000: every iteration is a
// fiber at once.)  Prints the median of 5 runs of a reduction of (i & 1) and of a parallel_for.
#include <weft/weft.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s POLICY WORKERS ITERATIONS\n", argv[0]);
    return 2;
  }
  weft::pool pool(weft::config{.workers = unsigned(std::atoi(argv[2])), .policy = weft::parse_policy(argv[1])});
  const long n = std::atol(argv[3]);
  std::vector<double> reduce_ns, for_ns;
  std::vector<unsigned char> touched(std::size_t(std::min(n, 1L << 20)));
  for (int run = 0; run < 5; ++run) {
    auto t0 = std::chrono::steady_clock::now();
    const long s = pool.run([n] { return weft::parallel_reduce(0L, n, 0L, [](long i) { return i & 1; }, std::plus<>{}); });
    auto t1 = std::chrono::steady_clock::now();
    pool.run([&] { weft::parallel_for(0L, n, [&](long i) { touched[std::size_t(i) & (touched.size() - 1)] = 1; }); });
    auto t2 = std::chrono::steady_clock::now();
    if (s != n / 2) return 3;
    reduce_ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / double(n));
    for_ns.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count() / double(n));
  }
  std::sort(reduce_ns.begin(), reduce_ns.end());
  std::sort(for_ns.begin(), for_ns.end());
  std::printf("%s, %s workers, %ld iterations: reduce %.2f ns/iteration, for %.2f ns/iteration (medians of 5)\n",
              argv[1], argv[2], n, reduce_ns[2], for_ns[2]);
  return 0;
}
