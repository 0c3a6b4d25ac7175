#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "bfs.hpp"

namespace {

// tbb::parallel_for over the frontier and over each node's neighbours, default (auto)
// partitioner, default grain.
std::uint64_t search(const bench::bfs::graph& G, bench::bfs::state& s) {
    std::uint32_t size = s.start();
    for (std::uint32_t d = 1; size != 0; ++d) {
        tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, size),
                          [&](const tbb::blocked_range<std::uint32_t>& r) {
            for (std::uint32_t i = r.begin(); i != r.end(); ++i) {
                const std::uint32_t u = s.current[i];
                tbb::parallel_for(tbb::blocked_range<std::uint64_t>(G.offsets[u], G.offsets[u + 1]),
                                  [&](const tbb::blocked_range<std::uint64_t>& q) {
                    for (std::uint64_t e = q.begin(); e != q.end(); ++e) s.visit(G.targets[e], d);
                });
            }
        });
        size = s.advance();
    }
    return bench::bfs::checksum(s);
}

bench::output run(const bench::args& a) {
    const bench::bfs::graph G = bench::bfs::input(a);
    bench::bfs::state s(G.n);
    auto t = bench::measure(a, [&] { s.reset(); }, [&] { return search(G, s); });
    return bench::result(t.time_s, t.result, bench::bfs::oracle(G));
}

}  // namespace

BENCH_KERNEL("bfs", run);
