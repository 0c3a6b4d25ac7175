// The papers' synthetic DAGs: NAR §7.2's trees, LS Algorithm 5, NAR Theorem 6.7's DAG.
#include <stdexcept>
#include <string>

#include "generators.hpp"
#include "rng.hpp"

namespace weft_sim {
namespace {

// Uniform in [1, 2·mean - 1] (mean `mean`), NAR's model of irregular threads (§7.2.1).
Time random_around(std::uint64_t h, Time mean) {
  if (mean <= 1) return 1;
  return 1 + mix64(h) % (2 * mean - 1);
}

struct NarShape {
  unsigned g, m, depth;
  std::uint64_t seed;
  Time granularity(unsigned level, std::uint64_t h) const {
    switch (g) {
      case 1: return random_around(h, 50);                                 // G1: equal
      case 2: return random_around(h, Time(1) << (depth - level));         // G2: halves per level
      default: return level == depth ? 50 : 2;                             // G3: leaves 50, inner 2
    }
  }
  std::uint64_t memory(unsigned level, std::uint64_t h) const {
    // About 4 MB over the whole tree at depth 15 (2^16 - 1 threads), as in NAR §7.2.3.
    switch (m) {
      case 1: return mix64(h ^ 7) % 129;                                   // M1: mean 64
      case 2: return (std::uint64_t(1) << 18) >> level;                    // M2: halves per level
      default: return level == 6 ? 40 * 1024 : mix64(h ^ 7) % 49;          // M3: 40 KB at depth 6
    }
  }
};

}  // namespace

Dag make_nar_tree(unsigned g, unsigned m, unsigned depth, std::uint64_t seed) {
  if (g < 1 || g > 3) throw std::invalid_argument("nar: granularity option must be 1, 2 or 3 (G1-G3)");
  if (m < 1 || m > 3) throw std::invalid_argument("nar: memory option must be 1, 2 or 3 (M1-M3)");
  if (depth < 1 || depth > 22) throw std::invalid_argument("nar: depth must be in 1..22");
  const NarShape shape{g, m, depth, seed};
  Dag d;
  // Level by level from the leaves: thread i of level l has children 2i, 2i+1 of level l+1.
  std::vector<std::uint32_t> below;
  for (unsigned level = depth + 1; level-- > 0;) {
    const std::uint64_t count = std::uint64_t(1) << level;
    std::vector<std::uint32_t> here(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t h = mix64(seed ^ mix64((std::uint64_t(level) << 40) | i));
      const Time work = shape.granularity(level, h);
      const std::uint64_t mem = shape.memory(level, h);
      here[i] = level == depth ? d.add_leaf(work, mem)
                               : d.add_pair(work, below[2 * i], below[2 * i + 1], 0, mem);
    }
    below = std::move(here);
  }
  d.set_root(below[0]);
  d.name = "nar:G" + std::to_string(g) + ":M" + std::to_string(m) + ":" + std::to_string(depth);
  return d;
}

Dag make_ls_adversary(unsigned n, Time work) {
  if (n < 1 || n > 40'000'000) throw std::invalid_argument("alg5: N must be in 1..4e7 (a template node per level)");
  Dag d;
  const auto iteration = d.add_leaf(work);
  const auto foo = d.add_leaf(1);
  std::uint32_t bar = d.add_loop(0, n, iteration);  // bar(N): the parallel loop
  // bar(k) = spawn foo(k+1); bar(k+1); sync. With join(a, b) the second branch is the latent one,
  // so bar runs inline and foo is the postponed task (LS's help-first reading, footnote 19).
  for (unsigned k = 0; k < n; ++k) bar = d.add_pair(1, bar, foo);
  d.set_root(bar);
  d.name = "alg5:" + std::to_string(n) + ":" + std::to_string(work);
  return d;
}

Dag make_nar_lower_bound(unsigned p, unsigned depth, std::uint64_t block) {
  if (p < 4 || p > (1u << 20) || (p & (p - 1)) != 0)
    throw std::invalid_argument("nar-lb: p must be a power of two in 4..2^20");
  unsigned log_n = 0;
  while ((2u << log_n) < p) ++log_n;  // n = p/2 subgraphs below a fork tree of depth log(p/2)
  if (depth > 80'000'000) throw std::invalid_argument("nar-lb: depth D must be at most 8e7 (a template node per fork)");
  if (depth < 2 * log_n + 3)  // the least depth worked out: the formula alone left it to the reader
    throw std::invalid_argument("nar-lb: D = " + std::to_string(depth) + " is below " + std::to_string(2 * log_n + 3) +
                                ", the least depth for P = " + std::to_string(p) + " (2·log2(P/2) + 3)");
  const unsigned d_len = (depth - 1 - 2 * log_n) / 2;
  Dag g;
  const auto g0 = g.add_leaf(d_len);  // G0: a serial chain of d unit nodes
  // G: the owner descends a chain of d forks; each fork's latent branch is a black node
  // allocating `block`, freed by the grey node after the fork's join (Fig 6.9 (c)). Serially only
  // one block is live; every thief that takes a black node holds its block until the chain returns.
  const auto black = g.add_leaf(1, block, true);
  std::uint32_t chain = g.add_leaf(1);
  for (unsigned k = 0; k < d_len; ++k) chain = g.add_pair(1, chain, black, 1);
  std::vector<std::uint32_t> level(std::size_t(1) << log_n, chain);
  level[0] = g0;
  while (level.size() > 1) {
    std::vector<std::uint32_t> up(level.size() / 2);
    for (std::size_t i = 0; i < up.size(); ++i) up[i] = g.add_pair(1, level[2 * i], level[2 * i + 1], 1);
    level = std::move(up);
  }
  g.set_root(level[0]);
  g.name = "nar-lb:" + std::to_string(p) + ":" + std::to_string(depth) + ":" + std::to_string(block);
  return g;
}

}  // namespace weft_sim
