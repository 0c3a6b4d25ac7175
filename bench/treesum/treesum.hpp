// bench/treesum: the binary-tree sum that Spice and chili publish as their overhead benchmark:
// a complete binary tree of the given height (2^height - 1 nodes), summed by a recursion that
// makes one join per node, leaves included (each branch sums one child, or gives 0 where there
// is none).  Heights 10 / 23 / 24 (1,023 / 8,388,607 / 16,777,215 nodes: full is the ~16M nodes
// of chili's published figures; quick, the largest height whose serial sum stays near 20 ms).
//
// The nodes lie in one array in preorder, children by 32-bit index (no child: 0xFFFFFFFF), so
// that the C++ and Rust variants read the same memory layout; a heap allocation per node, as
// chili's benchmark makes, would leave the layout to each allocator.  Node values: the
// splitmix64 outputs of seed 31, in preorder.  Checksum: the wrapping sum of all values; the
// oracle is a plain loop over the array.
#pragma once

#include <cstdint>
#include <vector>

#include "../common/bench.hpp"

namespace bench::treesum {

struct node {
    std::uint64_t value;
    std::uint32_t left, right;
};

inline constexpr std::uint32_t no_child = 0xFFFFFFFFu;

// Appends the complete subtree of the given height (>= 1) in preorder; returns its root's index.
inline std::uint32_t grow(std::vector<node>& tree, std::uint64_t& g, unsigned height) {
    const auto root = static_cast<std::uint32_t>(tree.size());
    tree.push_back({splitmix64(g), no_child, no_child});
    if (height > 1) {
        const std::uint32_t left = grow(tree, g, height - 1);
        const std::uint32_t right = grow(tree, g, height - 1);
        tree[root].left = left;
        tree[root].right = right;
    }
    return root;
}

inline std::vector<node> input(const args& a) {
    require_default_variant(a);
    const unsigned height = pick(a, 10u, 23u, 24u);
    std::vector<node> tree;
    tree.reserve((std::size_t{1} << height) - 1);
    std::uint64_t g = 31;
    grow(tree, g, height);
    return tree;
}

// One join per node: the left branch sums the left child's subtree, the right branch the right
// child's (as chili's benchmark writes it; Spice forks only where both children exist).  Declared
// inline as fib is (bench/fib/fib.hpp), and its first branch `noexcept` (it cannot throw), so that
// the join needs no exception cleanup around it (README "Cheap joins"): with both, weft's T1/Ts
// 1.44 -> 1.35 at quick size (docs/results/fine-grained.md, "treesum's first branch noexcept").
template <class S>
inline std::uint64_t sum(const node* tree, std::uint32_t i) {
    const node& n = tree[i];
    auto [l, r] = S::join([&]() noexcept { return n.left == no_child ? 0 : sum<S>(tree, n.left); },
                          [&] { return n.right == no_child ? 0 : sum<S>(tree, n.right); });
    return n.value + l + r;
}

inline std::uint64_t oracle(const std::vector<node>& tree) {
    std::uint64_t s = 0;
    for (const node& n : tree) s += n.value;
    return s;
}

// The tree passes through opaque() so that the compiler cannot merge the warm-up and the timed
// run of the serial elision.
template <class S>
output run(const args& a) {
    const std::vector<node> tree = input(a);
    auto t = measure(a, [&] {
        return S::run_tasks([&] { return sum<S>(opaque(tree.data()), 0); });
    });
    return result(t.time_s, t.result, oracle(tree));
}

}  // namespace bench::treesum
