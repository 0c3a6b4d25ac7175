// bench/stress (WOOL's stress test): a balanced binary join tree of the given depth,
// repeated reps times; leaf number i (0 .. 2^depth - 1, left to right) runs
// x = x * 6364136223846793005 + 1442695040888963407 (uint64) `leaf` times from x = i and
// returns x.  Sizes (depth, leaf, reps) = (6, 64, 4) / (10, 256, 400) / (14, 256, 200).
// Checksum: the wrapping sum of all leaf results over all reps; the oracle is reps times one
// serial pass over the leaves (wrapping arithmetic makes the two equal).
//
// Variant steal-cost:L:R (KERNELS.md, "Variants"; WOOL Table III): R trees of height
// h = ceil(log2(P)), leaf l of tree r running the leaf loop L times from x = r * 2^h + l, all
// R in one timed region; afterwards, on the main thread outside the runtime, the time of R
// plain leaf loops (from x = r) is reported as leaf_time_s.
//
// The tree is tree(depth, index, leaf): node `index` at height `depth`
// covers leaves index * 2^depth .. (index + 1) * 2^depth - 1, so the root of tree r is
// index r in the steal-cost variant (leaves r * 2^h + l) and index 0 in the kernel.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "../common/bench.hpp"

namespace bench::stress {

struct input_t {
    unsigned depth;
    std::uint64_t leaf;
    std::uint64_t reps;
    bool steal_cost = false;  // the steal-cost:L:R variant
};

// A decimal integer >= 1, or 0 when the text is not one.
inline std::uint64_t parse_count(const std::string& t) {
    if (t.empty() || t.size() > 18 || t.find_first_not_of("0123456789") != std::string::npos)
        return 0;
    return std::stoull(t);
}

inline input_t input(const args& a) {
    if (a.variant.empty())
        return pick(a, input_t{6, 64, 4}, input_t{10, 256, 400}, input_t{14, 256, 200});
    const std::string prefix = "steal-cost:";
    if (a.variant.compare(0, prefix.size(), prefix) != 0)
        throw usage_error("kernel stress has no variant '" + a.variant +
                          "' (it has steal-cost:L:R)");
    const std::string rest = a.variant.substr(prefix.size());
    const auto colon = rest.find(':');
    const std::uint64_t l = colon == std::string::npos ? 0 : parse_count(rest.substr(0, colon));
    const std::uint64_t r = colon == std::string::npos ? 0 : parse_count(rest.substr(colon + 1));
    if (l == 0 || r == 0)
        throw usage_error("kernel stress: variant '" + a.variant +
                          "' must be steal-cost:L:R with decimal L >= 1 and R >= 1");
    unsigned h = 0;
    while ((std::uint64_t{1} << h) < a.workers) ++h;  // ceil(log2(P))
    return input_t{h, l, r, true};
}

// The leaf: `leaf` dependent LCG steps.  The constants go through opaque() (as the Rust leaf's
// go through black_box, bench/rust/src/kernels/stress.rs) so that the compiler cannot unroll the
// loop and fold k steps into one x * a^k + c_k: clang does (about 8x less work than g++'s loop,
// which made weft-bench-omp-clang's stress and steal-cost figures measure a different amount of
// work); every step stays one multiply and one add in every build.
inline std::uint64_t leaf_work(std::uint64_t index, std::uint64_t leaf) {
    const std::uint64_t a = opaque(std::uint64_t{6364136223846793005ULL});
    const std::uint64_t c = opaque(std::uint64_t{1442695040888963407ULL});
    std::uint64_t x = index;
    for (std::uint64_t k = 0; k < leaf; ++k) x = x * a + c;
    return x;
}

template <class S>
std::uint64_t tree(unsigned depth, std::uint64_t index, std::uint64_t leaf) {
    if (depth == 0) return leaf_work(index, leaf);
    auto [x, y] = S::join([&] { return tree<S>(depth - 1, 2 * index, leaf); },
                          [&] { return tree<S>(depth - 1, 2 * index + 1, leaf); });
    return x + y;
}

inline std::uint64_t oracle(const input_t& in) {
    std::uint64_t s = 0;
    if (in.steal_cost) {  // every leaf of every tree: x = 0 .. R * 2^h - 1
        for (std::uint64_t x = 0; x < (in.reps << in.depth); ++x) s += leaf_work(x, in.leaf);
        return s;
    }
    for (std::uint64_t i = 0; i < (std::uint64_t{1} << in.depth); ++i) s += leaf_work(i, in.leaf);
    return s * in.reps;
}

// The reps trees, one after the other, in one timed region.  The depth passes through opaque()
// each time so that the compiler cannot merge identical repetitions.
template <class S>
std::uint64_t repeat(const input_t& in) {
    std::uint64_t s = 0;
    for (std::uint64_t r = 0; r < in.reps; ++r)
        s += tree<S>(opaque(in.depth), in.steal_cost ? r : 0, in.leaf);
    return s;
}

// The output of a run; for the steal-cost variant also times the R plain leaf loops (here:
// on the main thread, no pool call, no task) and adds the members of KERNELS.md.
inline output finish(const input_t& in, double time_s, std::uint64_t checksum) {
    output out = result(time_s, checksum, oracle(in));
    if (in.steal_cost) {
        const double leaf_time_s = time_it([&] {
            for (std::uint64_t r = 0; r < in.reps; ++r) {
                const std::uint64_t x = leaf_work(opaque(r), in.leaf);
                asm volatile("" : : "r"(x));  // a sink the compiler cannot drop
            }
        });
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      ",\"leaf_time_s\":%.9g,\"reps\":%llu,\"leaf_iterations\":%llu,\"height\":%u",
                      leaf_time_s, static_cast<unsigned long long>(in.reps),
                      static_cast<unsigned long long>(in.leaf), in.depth);
        out.extra_json = buf;
    }
    return out;
}

template <class S>
output run(const args& a) {
    const input_t in = input(a);
    auto t = measure(a, [&] { return S::run_tasks([&] { return repeat<S>(in); }); });
    return finish(in, t.time_s, t.result);
}

}  // namespace bench::stress
