#include <omp.h>

#include "stress.hpp"

namespace {

using namespace bench::stress;

// The join: the first subtree is a task, the second runs inline, then taskwait.
std::uint64_t tree(unsigned depth, std::uint64_t index, std::uint64_t leaf) {
    if (depth == 0) return leaf_work(index, leaf);
    std::uint64_t x = 0, y = 0;
#pragma omp task shared(x) firstprivate(depth, index, leaf)
    x = tree(depth - 1, 2 * index, leaf);
    y = tree(depth - 1, 2 * index + 1, leaf);
#pragma omp taskwait
    return x + y;
}

bench::output run(const bench::args& a) {
    const input_t in = input(a);
    auto t = bench::measure(a, [&] {
        std::uint64_t r = 0;
#pragma omp parallel
#pragma omp single
        r = repeat(in, [](unsigned d, std::uint64_t root, std::uint64_t leaf) {
            return tree(d, root, leaf);
        });
        return r;
    });
    return finish(in, t.time_s, t.result);
}

}  // namespace

BENCH_KERNEL("stress", run);
