#include "bfs.hpp"

namespace {

bench::output run(const bench::args& a) {
    const bench::bfs::graph G = bench::bfs::input(a);
    bench::bfs::state s(G.n);
    auto t = bench::measure(a, [&] { s.reset(); }, [&] { return bench::bfs::serial(G, s); });
    return bench::result(t.time_s, t.result, bench::bfs::oracle(G));
}

}  // namespace

BENCH_KERNEL("bfs", run);
