#include "../common/system_weft.hpp"
#include "stress.hpp"

namespace {

using namespace bench::stress;

std::uint64_t tree(unsigned depth, std::uint64_t index, std::uint64_t leaf) {
    if (depth == 0) return leaf_work(index, leaf);
    auto [x, y] = weft::join([&] { return tree(depth - 1, 2 * index, leaf); },
                             [&] { return tree(depth - 1, 2 * index + 1, leaf); });
    return x + y;
}

bench::output run(const bench::args& a) {
    const input_t in = input(a);
    auto t = bench::measure(a, [&] {
        return bench::weft_pool().run([&] {
            return repeat(in, [](unsigned d, std::uint64_t root, std::uint64_t leaf) {
                return tree(d, root, leaf);
            });
        });
    });
    return finish(in, t.time_s, t.result);
}

}  // namespace

BENCH_KERNEL("stress", run);
