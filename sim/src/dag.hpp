// Computation DAGs for the simulator: series-parallel templates (fork-join pairs and parallel loops)
// whose nodes may be shared, so fib(30) is 31 template nodes while its execution has 2.7 M
// instances. Children are always added before their parents, so every pass over the template is
// one bottom-up sweep in index order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft_sim {

using Time = std::uint64_t;  // simulated time units (ns for the program DAGs, steps for NAR's)
// The largest node work or cost the simulator accepts (2^40 units, 18 minutes in ns), and the
// largest total work of a DAG (2^60): clocks are 64-bit, so sums of these cannot wrap.
inline constexpr Time kMaxTimeValue = Time(1) << 40;
inline constexpr double kMaxDagWork = 1152921504606846976.0;  // 2^60

enum class NodeKind : std::uint8_t { leaf, pair, loop };
inline constexpr std::uint32_t kNoNode = UINT32_MAX;

// One node: `work` units before its children, its children (a pair's two branches run in
// parallel; a loop's iterations run in parallel), then `work_after` units. `alloc` bytes are
// allocated when the node starts and freed when it ends, or, with `free_at_parent_end`, when its
// parent ends (NAR Fig 6.9: the black node allocates, the grey node after the join frees).
struct Node {
  NodeKind kind = NodeKind::leaf;
  bool free_at_parent_end = false;
  std::uint32_t left = kNoNode;   // pair: first branch (run inline); loop: body when uniform
  std::uint32_t right = kNoNode;  // pair: second branch (the latent one)
  std::uint64_t count = 0;        // loop: iterations
  std::uint64_t first_iter = 0;   // loop: index into Dag::iterations, when not uniform
  Time work = 0;
  Time work_after = 0;
  std::uint64_t alloc = 0;
};

// Figures of the serial (zero-overhead) execution of a template node.
struct NodeTotals {
  double work = 0;        // sum of all work in the subtree (T1 without overheads)
  double span = 0;        // critical path with every pair and loop fully parallel (T_inf)
  double instances = 0;   // node instances executed
  double serial_peak = 0; // memory high-water of the depth-first serial execution (S1)
  double retained = 0;    // bytes still held by this node after it ends (free_at_parent_end)
};

class Dag {
 public:
  std::string name;

  std::uint32_t add_leaf(Time work, std::uint64_t alloc = 0, bool free_at_parent_end = false);
  std::uint32_t add_pair(Time work, std::uint32_t left, std::uint32_t right, Time work_after = 0,
                         std::uint64_t alloc = 0);
  std::uint32_t add_loop(Time work, std::uint64_t count, std::uint32_t body, Time work_after = 0,
                         std::uint64_t alloc = 0);
  std::uint32_t add_loop(Time work, const std::vector<std::uint32_t>& bodies, Time work_after = 0,
                         std::uint64_t alloc = 0);
  void set_root(std::uint32_t n) { root_ = n; }

  std::uint32_t root() const { return root_; }
  const Node& node(std::uint32_t n) const { return nodes_[n]; }
  Node& mutable_node(std::uint32_t n) { return nodes_[n]; }
  std::size_t size() const { return nodes_.size(); }
  std::uint32_t iteration(const Node& loop, std::uint64_t i) const {
    return loop.left != kNoNode ? loop.left : iterations_[loop.first_iter + i];
  }

  // Totals of every node, computed in one bottom-up sweep.
  std::vector<NodeTotals> totals() const;
  NodeTotals root_totals() const { return totals()[root_]; }
  // HB §3.1's span of the fully parallel cost graph: tau on every fork traversed; a loop of n
  // iterations is a balanced fork tree, ceil(log2 n) forks deep.
  double span_with_fork_cost(double tau) const;

 private:
  std::uint32_t push(Node n);
  void check_child(std::uint32_t child) const;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> iterations_;
  std::uint32_t root_ = kNoNode;
};

}  // namespace weft_sim
