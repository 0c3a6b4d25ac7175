#include "generators.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "rng.hpp"

namespace weft_sim {
namespace {

constexpr std::size_t kMaxNodes = 40'000'000;  // explicit trees beyond this do not fit memory

void check_size(const Dag& d, const char* what) {
  if (d.size() > kMaxNodes)
    throw std::invalid_argument(std::string(what) + ": more than 4e7 nodes; choose smaller parameters");
}

// Deterministic per-node random numbers: a node's value depends only on (seed, parent, index).
std::uint64_t child_hash(std::uint64_t parent, std::uint64_t index) {
  return mix64(parent ^ mix64(index + 0x51ed270b27c2f6a1ull));
}
double unit(std::uint64_t h) { return double(h >> 11) * 0x1.0p-53; }

std::uint32_t nqueens_board(Dag& d, unsigned n, std::vector<unsigned>& cols, Time check,
                            std::uint32_t reject) {
  const unsigned row = unsigned(cols.size());
  std::vector<std::uint32_t> bodies(n, reject);
  for (unsigned c = 0; c < n; ++c) {
    bool ok = true;
    for (unsigned r = 0; r < row && ok; ++r)
      ok = cols[r] != c && cols[r] + (row - r) != c && c + (row - r) != cols[r];
    if (!ok) continue;
    if (row + 1 == n) {
      bodies[c] = reject;  // a solution: the same check, nothing nested
      continue;
    }
    cols.push_back(c);
    const std::uint32_t inner = nqueens_board(d, n, cols, check, reject);
    cols.pop_back();
    // The candidate's task: its check, then the next row's loop over n columns.
    d.mutable_node(inner).work = check;
    bodies[c] = inner;
  }
  check_size(d, "nqueens");
  return d.add_loop(0, bodies);
}

}  // namespace

Dag make_fib(unsigned n, Time call_work) {
  if (n > 90) throw std::invalid_argument("fib: n must be at most 90");
  Dag d;
  std::vector<std::uint32_t> f;
  f.push_back(d.add_leaf(call_work));
  f.push_back(d.add_leaf(call_work));
  for (unsigned k = 2; k <= n; ++k) f.push_back(d.add_pair(call_work, f[k - 1], f[k - 2]));
  d.set_root(f[n]);
  d.name = "fib:" + std::to_string(n);
  return d;
}

Dag make_nqueens(unsigned n, Time check_work) {
  if (n < 1 || n > 13) throw std::invalid_argument("nqueens: N must be in 1..13 (explicit tree)");
  Dag d;
  const std::uint32_t reject = d.add_leaf(check_work);
  std::vector<unsigned> cols;
  d.set_root(nqueens_board(d, n, cols, check_work, reject));
  d.name = "nqueens:" + std::to_string(n);
  return d;
}

namespace {

// Post-order construction without recursion (binomial trees can be thousands deep).
template <class Children>
Dag build_uts(std::uint64_t seed, Time work, Children children) {
  struct Open {
    std::uint64_t hash;
    unsigned depth, count, made = 0;
    std::vector<std::uint32_t> kids;
  };
  Dag d;
  std::vector<Open> stack;
  stack.push_back({mix64(seed), 0, children(mix64(seed), 0u), 0, {}});
  std::uint32_t last = kNoNode;
  while (!stack.empty()) {
    Open& o = stack.back();
    if (o.made < o.count) {
      const std::uint64_t h = child_hash(o.hash, o.made++);
      const unsigned dep = o.depth + 1;
      stack.push_back({h, dep, children(h, dep), 0, {}});
      continue;
    }
    last = o.kids.empty() ? d.add_leaf(work) : d.add_loop(work, o.kids);
    stack.pop_back();
    if (!stack.empty()) stack.back().kids.push_back(last);
    check_size(d, "uts");
  }
  d.set_root(last);
  return d;
}

}  // namespace

Dag make_uts_geometric(unsigned depth, double b, std::uint64_t seed, unsigned root_children, Time work) {
  if (b <= 0) throw std::invalid_argument("uts-geo: branching factor must be positive");
  // A node's child count is at most 36.7 (1 + b) (the draw nearest 1, 1 - 2^-53): up to b = 1e8 it
  // fits 32 bits and 1 - p is far from 1.0.  Beyond, log(1 - p) rounds to 0 (b = 1e17: an infinite
  // count cast to unsigned) or a count passes 2^32, and the tree was silently wrong (stop 42's
  // bug hunt); a tree deeper than its root's children with b that large passes 4e7 nodes anyway.
  if (b > 1e8) throw std::invalid_argument("uts-geo: branching factor B must be at most 1e8 (a node's child count must fit 32 bits)");
  const double p = 1.0 / (1.0 + b);  // geometric number of children with mean b (UTS's T1 family)
  Dag d = build_uts(seed, work, [&](std::uint64_t h, unsigned dep) -> unsigned {
    if (dep == 0) return root_children;  // UTS fixes the root's branching (b0)
    if (dep >= depth) return 0;
    const double n = std::floor(std::log(1.0 - unit(h)) / std::log(1.0 - p));
    if (!(n >= 0 && n <= double(UINT32_MAX))) throw std::logic_error("uts-geo: a child count out of range");
    return unsigned(n);
  });
  d.name = "uts-geo:" + std::to_string(depth) + ":" + std::to_string(b) + ":" + std::to_string(seed);
  return d;
}

Dag make_uts_binomial(unsigned root_children, unsigned m, double q, std::uint64_t seed, Time work) {
  // Q is a probability: with M = 0, M·Q stayed below 1 whatever Q was (uts-bin:10:0:5 ran, stop
  // 48's sim hunt).
  if (q > 1.0) throw std::invalid_argument("uts-bin: Q is a probability, at most 1");
  if (m * q >= 1.0) throw std::invalid_argument("uts-bin: m·q must be below 1 (finite tree)");
  Dag d = build_uts(seed, work, [&](std::uint64_t h, unsigned dep) -> unsigned {
    if (dep == 0) return root_children;
    return unit(h) < q ? m : 0;  // UTS's T3 family: m children with probability q
  });
  d.name = "uts-bin:" + std::to_string(root_children) + ":" + std::to_string(m) + ":" +
           std::to_string(q) + ":" + std::to_string(seed);
  return d;
}

Dag make_nested_loops(std::uint64_t outer, std::uint64_t inner, Time work) {
  Dag d;
  const auto leaf = d.add_leaf(work);
  const auto in = d.add_loop(0, inner, leaf);
  d.add_loop(0, outer, in);
  d.name = "loops:" + std::to_string(outer) + ":" + std::to_string(inner) + ":" + std::to_string(work);
  return d;
}

}  // namespace weft_sim
