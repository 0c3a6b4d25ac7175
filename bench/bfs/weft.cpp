#include "../common/system_weft.hpp"
#include "bfs.hpp"

namespace {

// Declarative: the frontier loop and every neighbour loop are weft::parallel_for, no grain.
std::uint64_t search(const bench::bfs::graph& G, bench::bfs::state& s) {
    std::uint32_t size = s.start();
    for (std::uint32_t d = 1; size != 0; ++d) {
        weft::parallel_for(std::uint32_t{0}, size, [&](std::uint32_t i) {
            const std::uint32_t u = s.current[i];
            weft::parallel_for(G.offsets[u], G.offsets[u + 1],
                               [&](std::uint64_t e) { s.visit(G.targets[e], d); });
        });
        size = s.advance();
    }
    return bench::bfs::checksum(s);
}

bench::output run(const bench::args& a) {
    const bench::bfs::graph G = bench::bfs::input(a);
    bench::bfs::state s(G.n);
    auto t = bench::measure(a, [&] { s.reset(); },
                            [&] { return bench::weft_pool().run([&] { return search(G, s); }); });
    return bench::result(t.time_s, t.result, bench::bfs::oracle(G));
}

}  // namespace

BENCH_KERNEL("bfs", run);
