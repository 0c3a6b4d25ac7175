#include "stress.hpp"

namespace {

bench::output run(const bench::args& a) {
    using namespace bench::stress;
    const input_t in = input(a);
    auto t = bench::measure(a, [&] {
        return repeat(in, [](unsigned d, std::uint64_t root, std::uint64_t leaf) {
            return serial_tree(d, root, leaf);
        });
    });
    return finish(in, t.time_s, t.result);
}

}  // namespace

BENCH_KERNEL("stress", run);
