#include <omp.h>

#include "bfs.hpp"

namespace {

// One parallel region; per level an `omp for` (default schedule) over the frontier.  A node's
// neighbour loop is the inner loop of that iteration: OpenMP has no cheap nested worksharing
// loop, and the frontier loop is the flat loop the paper parallelises (KERNELS.md: omp for
// where a flat loop is natural).
std::uint64_t search(const bench::bfs::graph& G, bench::bfs::state& s) {
    std::uint32_t size = s.start();
#pragma omp parallel shared(size)
    {
        for (std::uint32_t d = 1; size != 0; ++d) {
            const std::uint32_t n = size;
#pragma omp for
            for (std::uint32_t i = 0; i < n; ++i) {
                const std::uint32_t u = s.current[i];
                for (std::uint64_t e = G.offsets[u]; e < G.offsets[u + 1]; ++e)
                    s.visit(G.targets[e], d);
            }
            // (implicit barrier) one thread swaps the frontiers; the barrier after single
            // publishes the new size to all.
#pragma omp single
            size = s.advance();
        }
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
