#include "dag.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace weft_sim {

std::uint32_t Dag::push(Node n) {
  if (nodes_.size() >= kNoNode) throw std::length_error("dag: more than 2^32-1 template nodes");
  nodes_.push_back(n);
  root_ = std::uint32_t(nodes_.size() - 1);  // the last node added is the root unless set_root
  return root_;
}

void Dag::check_child(std::uint32_t child) const {
  // Children before parents keeps the template acyclic and makes totals() one sweep.
  if (child >= nodes_.size()) throw std::invalid_argument("dag: child node added after its parent");
}

std::uint32_t Dag::add_leaf(Time work, std::uint64_t alloc, bool free_at_parent_end) {
  Node n;
  n.work = work;
  n.alloc = alloc;
  n.free_at_parent_end = free_at_parent_end;
  return push(n);
}

std::uint32_t Dag::add_pair(Time work, std::uint32_t left, std::uint32_t right, Time work_after,
                            std::uint64_t alloc) {
  check_child(left);
  check_child(right);
  Node n;
  n.kind = NodeKind::pair;
  n.work = work;
  n.left = left;
  n.right = right;
  n.work_after = work_after;
  n.alloc = alloc;
  return push(n);
}

std::uint32_t Dag::add_loop(Time work, std::uint64_t count, std::uint32_t body, Time work_after,
                            std::uint64_t alloc) {
  check_child(body);
  Node n;
  n.kind = NodeKind::loop;
  n.work = work;
  n.count = count;
  n.left = body;
  n.work_after = work_after;
  n.alloc = alloc;
  return push(n);
}

std::uint32_t Dag::add_loop(Time work, const std::vector<std::uint32_t>& bodies, Time work_after,
                            std::uint64_t alloc) {
  for (auto b : bodies) check_child(b);
  Node n;
  n.kind = NodeKind::loop;
  n.work = work;
  n.count = bodies.size();
  n.first_iter = iterations_.size();
  n.work_after = work_after;
  n.alloc = alloc;
  iterations_.insert(iterations_.end(), bodies.begin(), bodies.end());
  return push(n);
}

std::vector<NodeTotals> Dag::totals() const {
  std::vector<NodeTotals> t(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    NodeTotals& r = t[i];
    const double own = double(n.work) + double(n.work_after);
    r.work = own;
    r.span = 0;
    r.instances = 1;
    double held = 0;   // bytes the children left behind so far (serial order)
    double peak = 0;   // children's peak on top of what they left behind
    auto child = [&](std::uint32_t c, double times) {
      const NodeTotals& ct = t[c];
      r.work += times * ct.work;
      r.instances += times * ct.instances;
      r.span = std::max(r.span, ct.span);
      peak = std::max(peak, held + (times - 1) * ct.retained + ct.serial_peak);
      held += times * ct.retained;
    };
    if (n.kind == NodeKind::pair) {
      child(n.left, 1);
      child(n.right, 1);
    } else if (n.kind == NodeKind::loop && n.count > 0) {
      if (n.left != kNoNode) {
        child(n.left, double(n.count));
      } else {
        for (std::uint64_t k = 0; k < n.count; ++k) child(iterations_[n.first_iter + k], 1);
      }
    }
    r.span += own;
    r.serial_peak = double(n.alloc) + peak;
    r.retained = n.free_at_parent_end ? double(n.alloc) : 0.0;
  }
  return t;
}

double Dag::span_with_fork_cost(double tau) const {
  std::vector<double> s(nodes_.size(), 0.0);
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    double below = 0;
    if (n.kind == NodeKind::pair) {
      below = tau + std::max(s[n.left], s[n.right]);
    } else if (n.kind == NodeKind::loop && n.count > 0) {
      double longest = 0;
      if (n.left != kNoNode) longest = s[n.left];
      else
        for (std::uint64_t k = 0; k < n.count; ++k) longest = std::max(longest, s[iterations_[n.first_iter + k]]);
      below = tau * std::ceil(std::log2(double(n.count))) + longest;
    }
    s[i] = double(n.work) + double(n.work_after) + below;
  }
  return s[root_];
}

}  // namespace weft_sim
