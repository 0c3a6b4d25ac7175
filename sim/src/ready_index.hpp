// When the oldest item on each worker's deque became stealable (Item::ready; `none`: the deque is
// empty), in a min segment tree: a thief with zero steal latency looks at every other deque in turn
// (Simulator::steal_around), and the tree finds the first one it would take from, or the soonest
// item none of them has ready yet, in O(log P) instead of a look at each of the P - 1 deques
// (fib:21 at P = 4096 with steal=0 made 960 million such looks).
#pragma once

#include <algorithm>
#include <vector>

#include "dag.hpp"

namespace weft_sim::detail {

class ReadyIndex {
 public:
  static constexpr unsigned npos = ~0u;
  static constexpr Time none = ~Time(0);

  explicit ReadyIndex(unsigned n = 0) {
    while (size_ < n) size_ *= 2;
    min_.assign(2 * size_, none);
  }

  void set(unsigned i, Time ready) {
    unsigned x = i + size_;
    if (min_[x] == ready) return;
    min_[x] = ready;
    for (x /= 2; x >= 1; x /= 2) min_[x] = std::min(min_[2 * x], min_[2 * x + 1]);
  }

  // The first i in [lo, hi) whose value is at most t, or npos.
  unsigned first_at_most(unsigned lo, unsigned hi, Time t) const { return find(1, 0, size_, lo, hi, t); }

  // The least value of all, and worker i's own, each one read (no walk): steal_around's check that
  // nothing is ready anywhere, the common case once a push's one item is taken.
  Time all() const { return min_[1]; }
  Time at(unsigned i) const { return min_[size_ + i]; }

  // The least value in [lo, hi) (none when empty).
  Time min(unsigned lo, unsigned hi) const {
    Time m = none;
    for (lo += size_, hi += size_; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) m = std::min(m, min_[lo++]);
      if (hi & 1) m = std::min(m, min_[--hi]);
    }
    return m;
  }

 private:
  unsigned find(unsigned x, unsigned l, unsigned r, unsigned lo, unsigned hi, Time t) const {
    if (r <= lo || hi <= l || min_[x] > t) return npos;
    if (r - l == 1) return l;
    const unsigned mid = l + (r - l) / 2;
    const unsigned left = find(2 * x, l, mid, lo, hi, t);
    return left != npos ? left : find(2 * x + 1, mid, r, lo, hi, t);
  }
  unsigned size_ = 1;
  std::vector<Time> min_;  // min_[size_ + i]: worker i's; min_[x]: the least of min_[2x], min_[2x + 1]
};

}  // namespace weft_sim::detail
