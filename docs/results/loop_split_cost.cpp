// Instructions per iteration of a fine-grained loop under one policy at 1 worker, for callgrind:
// `parallel_reduce` (or, with a 4th argument, `parallel_for`) over n iterations of an 8-multiply
// body (22 instructions), 100 times in one run.  Differencing two sizes cancels start-up:
//   g++ -std=c++20 -O3 -DNDEBUG -Iinclude docs/results/loop_split_cost.cpp build/libweft.a \
//       -lboost_context -pthread -o /tmp/loop_split_cost
//   for n in 640 1280; do valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$n \
//       /tmp/loop_split_cost $n 100 wool; done
//   per iteration = (Ir(1280) - Ir(640)) / 64000     (callgrind_annotate's PROGRAM TOTALS)
// docs/results/small-work.md, "Stop 49" (the halving policies' splits).
#include <weft/weft.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

static std::uint64_t body(std::uint64_t i) {
  std::uint64_t x = i;
  for (int k = 0; k < 8; ++k) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    asm volatile("" : "+r"(x));
  }
  return x >> 60;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fputs("usage: loop_split_cost N REPS POLICY [for]\n", stderr);
    return 2;
  }
  const int n = std::atoi(argv[1]), reps = std::atoi(argv[2]);
  weft::config c;
  c.workers = 1;
  c.policy = weft::parse_policy(argv[3]);
  weft::pool p(c);
  const std::uint64_t s = p.run([&] {
    std::uint64_t acc = 0;
    for (int r = 0; r < reps; ++r) {
      if (argc > 4)
        weft::parallel_for(0, n, [](int i) { asm volatile("" ::"r"(body(std::uint64_t(i)))); });
      else
        acc += weft::parallel_reduce(0, n, std::uint64_t(0), [](int i) { return body(std::uint64_t(i)); },
                                     [](std::uint64_t a, std::uint64_t b) { return a + b; });
    }
    return acc;
  });
  std::printf("%llu\n", static_cast<unsigned long long>(s));
}
