#include "deque_order.hpp"

#include "rng.hpp"

namespace weft_sim::detail {

std::int32_t DequeOrder::make_node(std::int32_t parent) {
  std::int32_t x;
  if (!free_.empty()) {
    x = free_.back();
    free_.pop_back();
  } else {
    x = std::int32_t(nodes_.size());
    nodes_.emplace_back();
  }
  at(x) = Node{};
  at(x).parent = parent;
  at(x).priority = mix64(seed_++);
  return x;
}

void DequeOrder::recount(std::int32_t x) {
  Node& n = at(x);
  n.count = (n.stocked ? 1 : 0) + count_of(n.left) + count_of(n.right);
}

void DequeOrder::replace_child(std::int32_t parent, std::int32_t old_child, std::int32_t new_child) {
  if (parent == none) root_ = new_child;
  else if (at(parent).left == old_child) at(parent).left = new_child;
  else at(parent).right = new_child;
}

// x takes its parent's place, the order kept; both are recounted.
void DequeOrder::rotate_up(std::int32_t x) {
  const std::int32_t p = at(x).parent, g = at(p).parent;
  if (at(p).left == x) {
    at(p).left = at(x).right;
    if (at(p).left != none) at(at(p).left).parent = p;
    at(x).right = p;
  } else {
    at(p).right = at(x).left;
    if (at(p).right != none) at(at(p).right).parent = p;
    at(x).left = p;
  }
  at(p).parent = x;
  at(x).parent = g;
  replace_child(g, p, x);
  recount(p);
  recount(x);
}

// A new leaf (empty: no count changes) goes up while its priority beats its parent's.
void DequeOrder::sift_up(std::int32_t x) {
  while (at(x).parent != none && at(x).priority > at(at(x).parent).priority) rotate_up(x);
}

std::int32_t DequeOrder::push_back() {
  if (root_ == none) {
    root_ = make_node(none);
    return root_;
  }
  std::int32_t last = root_;
  while (at(last).right != none) last = at(last).right;
  const std::int32_t x = make_node(last);
  at(last).right = x;
  sift_up(x);
  return x;
}

// Just right of `after`: its right child if it has none, else the leftmost of its right subtree's.
std::int32_t DequeOrder::insert_after(std::int32_t after) {
  std::int32_t p = after;
  bool left = false;
  if (at(p).right != none) {
    p = at(p).right;
    while (at(p).left != none) p = at(p).left;
    left = true;
  }
  const std::int32_t x = make_node(p);
  (left ? at(p).left : at(p).right) = x;
  sift_up(x);
  return x;
}

void DequeOrder::erase(std::int32_t x) {
  set_stocked(x, false);
  // Down to a leaf (the child with the higher priority goes up), then off the tree.
  for (;;) {
    const std::int32_t l = at(x).left, r = at(x).right;
    if (l == none && r == none) break;
    rotate_up(r == none || (l != none && at(l).priority > at(r).priority) ? l : r);
  }
  replace_child(at(x).parent, x, none);
  free_.push_back(x);
}

void DequeOrder::set_stocked(std::int32_t x, bool stocked) {
  if (at(x).stocked == stocked) return;
  at(x).stocked = stocked;
  for (std::int32_t y = x; y != none; y = at(y).parent) {
    if (stocked) ++at(y).count;
    else --at(y).count;
  }
}

std::int32_t DequeOrder::kth_stocked(std::uint64_t k) const {
  std::int32_t x = root_;
  for (;;) {
    const Node& n = nodes_[std::size_t(x)];
    const std::uint64_t left = count_of(n.left);
    if (k < left) {
      x = n.left;
      continue;
    }
    k -= left;
    if (n.stocked) {
      if (k == 0) return x;
      --k;
    }
    x = n.right;
  }
}

}  // namespace weft_sim::detail
