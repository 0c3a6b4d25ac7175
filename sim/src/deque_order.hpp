// The ordered list of ready deques of NAR's thread schedulers (NAR Fig 6.3; engine_threads.cpp),
// with what their steals ask of it answered without walking the list: adf takes from the leftmost
// non-empty deque, dfd from a random one of the leftmost P non-empty ones.  Walking a std::list to
// find them took nearly all of a run's time at large P (the list holds a deque per busy processor,
// most of them empty).  The list is a treap ordered by position (no keys: a new deque goes just
// right of another one, as NAR's order says), each node counting the non-empty deques in its
// subtree, so that insert, erase, marking a deque (non-)empty and finding the k-th non-empty deque
// take O(log n) expected steps.  The treap's priorities come from a generator of its own: the
// simulation's random numbers are not touched, and the shape of the tree changes no result.
#pragma once

#include <cstdint>
#include <vector>

namespace weft_sim::detail {

class DequeOrder {
 public:
  static constexpr std::int32_t none = -1;

  // A new element at the right end, or just right of `after`; its number (reused after erase).
  std::int32_t push_back();
  std::int32_t insert_after(std::int32_t after);
  void erase(std::int32_t x);
  // Mark x as holding threads (true) or empty.
  void set_stocked(std::int32_t x, bool stocked);
  // The number of non-empty elements, and the k-th of them from the left (k < stocked_count()).
  std::uint64_t stocked_count() const { return root_ == none ? 0 : nodes_[std::size_t(root_)].count; }
  std::int32_t kth_stocked(std::uint64_t k) const;

 private:
  struct Node {
    std::int32_t left = none, right = none, parent = none;
    std::uint64_t priority = 0;
    std::uint64_t count = 0;  // non-empty elements in this subtree
    bool stocked = false;
  };
  Node& at(std::int32_t x) { return nodes_[std::size_t(x)]; }
  std::uint64_t count_of(std::int32_t x) const { return x == none ? 0 : nodes_[std::size_t(x)].count; }
  void recount(std::int32_t x);
  void rotate_up(std::int32_t x);
  void sift_up(std::int32_t x);
  void replace_child(std::int32_t parent, std::int32_t old_child, std::int32_t new_child);
  std::int32_t make_node(std::int32_t parent);

  std::vector<Node> nodes_;
  std::vector<std::int32_t> free_;
  std::int32_t root_ = none;
  std::uint64_t seed_ = 0;  // the priorities' own splitmix64 state
};

}  // namespace weft_sim::detail
