// bench/stress (WOOL's stress test): a balanced binary join tree of the given depth,
// repeated reps times; leaf number i (0 .. 2^depth - 1, left to right) runs
// x = x * 6364136223846793005 + 1442695040888963407 (uint64) `leaf` times from x = i and
// returns x.  Sizes (depth, leaf, reps) = (6, 64, 4) / (10, 256, 400) / (14, 256, 200).
// Checksum: the wrapping sum of all leaf results over all reps; the oracle is reps times one
// serial pass over the leaves (wrapping arithmetic makes the two equal).
#pragma once

#include <cstdint>

#include "../common/bench.hpp"

namespace bench::stress {

struct input_t {
    unsigned depth;
    std::uint64_t leaf;
    unsigned reps;
};

inline input_t input(const args& a) {
    require_default_variant(a);
    return pick(a, input_t{6, 64, 4}, input_t{10, 256, 400}, input_t{14, 256, 200});
}

inline std::uint64_t leaf_work(std::uint64_t index, std::uint64_t leaf) {
    std::uint64_t x = index;
    for (std::uint64_t k = 0; k < leaf; ++k) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x;
}

// The serial elision of one tree: node `index` at height `depth` covers leaves
// index * 2^depth .. (index + 1) * 2^depth - 1.
inline std::uint64_t serial_tree(unsigned depth, std::uint64_t index, std::uint64_t leaf) {
    if (depth == 0) return leaf_work(index, leaf);
    return serial_tree(depth - 1, 2 * index, leaf) + serial_tree(depth - 1, 2 * index + 1, leaf);
}

inline std::uint64_t oracle(const input_t& in) {
    std::uint64_t s = 0;
    for (std::uint64_t i = 0; i < (std::uint64_t{1} << in.depth); ++i) s += leaf_work(i, in.leaf);
    return s * in.reps;
}

// reps repetitions of tree(depth, 0, leaf); the depth passes through opaque() each time so
// that the compiler cannot merge the identical repetitions.
template <class Tree>
std::uint64_t repeat(const input_t& in, Tree&& tree) {
    std::uint64_t s = 0;
    for (unsigned r = 0; r < in.reps; ++r) s += tree(opaque(in.depth), in.leaf);
    return s;
}

}  // namespace bench::stress
