// A DFS down a path written with loops: every node a parallel_for over its one child, nested
// DEPTH deep, with a second worker looking for work (docs/results/loops.md, "Stop 40").  Before stop
// 40 the oldest-first check (lazy-bf, heartbeat) walked every frame below it at each level's check:
// quadratic in DEPTH.  Build against a Release build of the library (build/):
//   g++ -std=c++20 -O2 -Iinclude docs/results/deep_loop_path.cpp build/libweft.a -lboost_context \
//       -pthread -o /tmp/deep_loop_path
//   for d in 10000 20000 100000 200000; do /tmp/deep_loop_path lazy-bf 2 $d; done
#include <weft/weft.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>

static void dfs(long v, long n) {
  if (v + 1 >= n) return;
  const long kids[1] = {v + 1};
  weft::parallel_for(0, 1, [&](int i) { dfs(kids[i], n); });
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s POLICY WORKERS DEPTH\n", argv[0]);
    return 2;
  }
  weft::pool p(weft::config{.workers = unsigned(std::atoi(argv[2])), .policy = weft::parse_policy(argv[1])});
  const long n = std::atol(argv[3]);
  const auto t0 = std::chrono::steady_clock::now();
  p.run([n] { dfs(0, n); });
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const weft::stats st = p.stats();
  std::printf("%s, %s workers, depth %ld: %.3f s, %llu deque checks, %llu promotions\n", argv[1], argv[2], n, s,
              (unsigned long long)st.total.deque_checks, (unsigned long long)st.total.promotions);
  return 0;
}
