// bench/bfs: level-synchronous breadth-first search on a random geometric graph (LS §7.3,
// whose BFS ran on the DIMACS10 rgg_n_2_24 graph; here the graph is generated).
//
// Input (KERNELS.md): n = 2000 / 1000000 / 4000000 nodes (test / quick / full), seed 11; point p
// is at (x_p, y_p) = (uniform01, uniform01), drawn in the order x_0, y_0, x_1, y_1, ...  With
// r = sqrt(10 / (pi * n)) (average degree 10) and the grid of k = max(1, floor(1 / r)) cells a
// side (struct grid), the node ids are the points' ranks in (cell, p) order.  Nodes i and j != i
// are neighbours iff dx*dx + dy*dy < r*r (doubles; dx = x_i - x_j, dy = y_i - y_j).  CSR,
// neighbours ascending.
//
// Algorithm (every system): level[v] = UNVISITED (all ones) for all v, then level[0] = 0 and
// frontier = {0}; per level d, a parallel loop over the frontier, and for each frontier node u a
// parallel loop over its neighbours v: if level[v] reads UNVISITED and a compare-and-swap
// UNVISITED -> d+1 on level[v] succeeds, v is appended to the next frontier.  Appending: each
// thread fills a block of `append_block` slots that it reserved with one fetch_add on a shared
// counter, and the slots of a block it leaves unfilled are holes (UNVISITED) that the next level's
// loop skips — so the counter's cache line crosses cores once per block, not once per node (a
// fetch_add per node made every system slower on 2 workers than on 1: docs/results/loops.md,
// "bfs at 2 workers").  The order of a frontier is nondeterministic, the levels are not.  The
// serial elision keeps the atomics (it is the same code with the loops serial).
//
// Timed: the search only; the level array is reset to UNVISITED and the two frontier buffers are
// allocated before the clock starts (bench::measure's prepare step), and the checksum is taken
// after it stops (measure's verify step).
//
// Checksum: (number of reached nodes) * 2^32 + (sum of the levels of reached nodes), wrapping;
// the oracle is a plain queue BFS of the same graph.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numbers>
#include <vector>

#include "../common/bench.hpp"

namespace bench::bfs {

inline constexpr std::uint32_t unvisited = 0xFFFFFFFFu;

struct graph {
    std::uint32_t n = 0;
    std::vector<std::uint64_t> offsets;   // n + 1
    std::vector<std::uint32_t> targets;   // offsets[n]
};

// The grid of the generator: k x k cells at least r wide (k = max(1, floor(1 / r))), so that a
// node's neighbours lie in the 3 x 3 cells around its own; cell(x, y) = cy * k + cx with
// cx = min(k - 1, floor(x * k)) and cy likewise.
struct grid {
    explicit grid(double r) : k(std::max<std::uint32_t>(1, static_cast<std::uint32_t>(1.0 / r))) {}
    std::uint32_t axis(double v) const {
        return std::min<std::uint32_t>(k - 1, static_cast<std::uint32_t>(v * k));
    }
    std::uint32_t cell(double x, double y) const { return axis(y) * k + axis(x); }
    std::uint32_t k;
};

// Nodes are numbered in cell order (nearby points get nearby ids), so
// that the scan of a node's 3 x 3 cells reads consecutive nodes and its neighbour list comes
// out ascending without a sort: cells ascend row by row, and so do the ids within them.
inline graph generate(std::uint32_t n) {
    std::uint64_t g = 11;
    std::vector<double> px(n), py(n);
    for (std::uint32_t p = 0; p < n; ++p) {
        px[p] = uniform01(g);
        py[p] = uniform01(g);
    }
    const double r = std::sqrt(10.0 / (std::numbers::pi * static_cast<double>(n)));
    const double r2 = r * r;
    const grid grid_of(r);
    const std::uint32_t k = grid_of.k;

    // Counting sort of the points by cell (stable): node id = rank in (cell, point) order.
    std::vector<std::uint32_t> cell_start(static_cast<std::size_t>(k) * k + 1, 0);
    std::vector<std::uint32_t> cell_of_point(n);
    for (std::uint32_t p = 0; p < n; ++p) {
        cell_of_point[p] = grid_of.cell(px[p], py[p]);
        ++cell_start[cell_of_point[p] + 1];
    }
    for (std::size_t c = 0; c < static_cast<std::size_t>(k) * k; ++c)
        cell_start[c + 1] += cell_start[c];
    std::vector<double> x(n), y(n);
    {
        std::vector<std::uint32_t> fill(cell_start.begin(), cell_start.end() - 1);
        for (std::uint32_t p = 0; p < n; ++p) {
            const std::uint32_t id = fill[cell_of_point[p]]++;
            x[id] = px[p];
            y[id] = py[p];
        }
    }

    graph G;
    G.n = n;
    G.offsets.resize(static_cast<std::size_t>(n) + 1);
    G.targets.reserve(static_cast<std::size_t>(n) * 11);
    G.offsets[0] = 0;
    const std::uint32_t last = k - 1;
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t cx = grid_of.axis(x[i]), cy = grid_of.axis(y[i]);
        const std::uint32_t x_lo = cx == 0 ? 0 : cx - 1, x_hi = std::min(cx + 1, last);
        for (std::uint32_t yy = cy == 0 ? 0 : cy - 1; yy <= std::min(cy + 1, last); ++yy) {
            // the cells x_lo..x_hi of row yy hold consecutive ids
            const std::size_t row = static_cast<std::size_t>(yy) * k;
            for (std::uint32_t j = cell_start[row + x_lo]; j < cell_start[row + x_hi + 1]; ++j) {
                const double dx = x[i] - x[j], dy = y[i] - y[j];
                if (j != i && dx * dx + dy * dy < r2) G.targets.push_back(j);
            }
        }
        G.offsets[i + 1] = G.targets.size();
    }
    return G;
}

inline graph input(const args& a) {
    require_default_variant(a);
    return generate(pick<std::uint32_t>(a, 2000, 1000000, 4000000));
}

// A frontier is appended to in blocks of this many slots (one fetch_add each).
inline constexpr std::uint32_t append_block = 64;
// The most threads that may append to one frontier (each leaves at most one partly filled block a
// level): the frontier arrays have room for n + append_block * append_threads slots.
inline constexpr std::uint32_t append_threads = 256;

// This thread's block of the frontier being built: slots [pos, end) of the search `search` (a
// number no other search shares), level `level`.  Thread-local, so any system's threads (weft's
// workers, OpenMP's, oneTBB's) each fill their own without synchronizing.
struct append_cursor {
    std::uint64_t search = 0;
    std::uint32_t level = 0, pos = 0, end = 0;
};
inline thread_local append_cursor cursor;
inline std::atomic<std::uint64_t> searches{0};

// The mutable state of one search, allocated once.
struct state {
    explicit state(std::uint32_t n)
        : level(new std::atomic<std::uint32_t>[n]), current(new std::uint32_t[capacity(n)]),
          next(new std::uint32_t[capacity(n)]), n(n) {}

    static std::size_t capacity(std::uint32_t n) { return std::size_t{n} + std::size_t{append_block} * append_threads; }

    // Untimed: every node unvisited; a new search number, so that no thread's cursor of an earlier
    // search is taken for this one's.
    void reset() {
        for (std::uint32_t v = 0; v < n; ++v) level[v].store(unvisited, std::memory_order_relaxed);
        next_size.store(0, std::memory_order_relaxed);
        search = searches.fetch_add(1, std::memory_order_relaxed) + 1;
    }

    // The claim of v for level d: test, then compare-and-swap; the winner appends v.
    void visit(std::uint32_t v, std::uint32_t d) {
        if (level[v].load(std::memory_order_relaxed) != unvisited) return;
        std::uint32_t expected = unvisited;
        if (level[v].compare_exchange_strong(expected, d, std::memory_order_relaxed)) append(v, d);
    }

    // v into this thread's block of the next frontier, reserving a new block (its slots holes
    // until filled) when the thread has none for this search and level or its block is full.
    void append(std::uint32_t v, std::uint32_t d) {
        append_cursor& c = cursor;
        if (c.search != search || c.level != d || c.pos == c.end) [[unlikely]] {
            const std::uint32_t base = next_size.fetch_add(append_block, std::memory_order_relaxed);
            if (base + std::size_t{append_block} > capacity(n)) {
                std::fprintf(stderr, "bfs: more than %u threads appended to one frontier\n", append_threads);
                std::abort();
            }
            std::fill(next.get() + base, next.get() + base + append_block, unvisited);
            c = {search, d, base, base + append_block};
        }
        next[c.pos++] = v;
    }

    // Between levels (serially, after the level's loop has joined): next becomes current.
    // Returns the new frontier's size.
    std::uint32_t advance() {
        std::swap(current, next);
        return next_size.exchange(0, std::memory_order_relaxed);
    }

    // Level 0: the source.
    std::uint32_t start() {
        level[0].store(0, std::memory_order_relaxed);
        current[0] = 0;
        return 1;
    }

    std::unique_ptr<std::atomic<std::uint32_t>[]> level;
    std::unique_ptr<std::uint32_t[]> current, next;  // node ids, and holes (unvisited)
    alignas(64) std::atomic<std::uint32_t> next_size{0};
    std::uint32_t n;
    std::uint64_t search = 0;
};

// Reached-node count * 2^32 + sum of levels.
inline std::uint64_t checksum(const state& s) {
    std::uint64_t reached = 0, sum = 0;
    for (std::uint32_t v = 0; v < s.n; ++v) {
        const std::uint32_t l = s.level[v].load(std::memory_order_relaxed);
        if (l != unvisited) {
            ++reached;
            sum += l;
        }
    }
    return (reached << 32) + sum;
}

// Per level a flat loop over the frontier (OpenMP's `omp for`), each node's neighbours a
// parallel loop (serial within an OpenMP iteration: system_omp.hpp).
template <class S>
void search(const graph& G, state& s) {
    std::uint32_t size = s.start();
    for (std::uint32_t d = 1; size != 0; ++d) {
        S::flat_for(std::uint32_t{0}, size, [&](std::uint32_t i) {
            const std::uint32_t u = s.current[i];
            if (u == unvisited) return;  // a hole of a partly filled block
            S::parallel_for(G.offsets[u], G.offsets[u + 1],
                            [&](std::uint64_t e) { s.visit(G.targets[e], d); });
        });
        size = s.advance();
    }
}

// The oracle: a FIFO-queue BFS.
inline std::uint64_t oracle(const graph& G) {
    std::vector<std::uint32_t> level(G.n, unvisited), queue;
    queue.reserve(G.n);
    level[0] = 0;
    queue.push_back(0);
    std::uint64_t reached = 0, sum = 0;
    for (std::size_t h = 0; h < queue.size(); ++h) {
        const std::uint32_t u = queue[h];
        ++reached;
        sum += level[u];
        for (std::uint64_t e = G.offsets[u]; e < G.offsets[u + 1]; ++e) {
            const std::uint32_t v = G.targets[e];
            if (level[v] == unvisited) {
                level[v] = level[u] + 1;
                queue.push_back(v);
            }
        }
    }
    return (reached << 32) + sum;
}

template <class S>
output run(const args& a) {
    const graph G = input(a);
    state s(G.n);
    auto t = measure(
        a, [&] { s.reset(); }, [&] { S::run_loops([&] { search<S>(G, s); }); },
        [&] { return checksum(s); });
    return result(t.time_s, t.result, oracle(G));
}

}  // namespace bench::bfs
