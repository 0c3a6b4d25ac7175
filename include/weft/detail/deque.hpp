// weft — the stealable deque of promoted items: a fixed-capacity Chase-Lev deque of frame pointers.
// The owner pushes and pops at the bottom; thieves take the oldest item at the top.
//
// Memory orders follow Lê, Pop, Cohen, Zappa Nardelli (PPoPP 2013), with the two seq_cst fences
// folded into seq_cst accesses so that ThreadSanitizer, which does not model fences, sees the
// happens-before edges: pop's store of `bottom` and steal's load of `top` must not be reordered
// with the following load of the other index (the store-load ordering of Dekker's protocol);
// steal's acquire of `bottom` pairs with push's release so that a stolen frame's fields are
// visible to the thief.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

#include "chaos.hpp"
#include "frame.hpp"
#include "zero_pages.hpp"

namespace weft::detail {

class chase_lev_deque {
 public:
  // The slots are plain pointers in fresh zero pages, accessed through std::atomic_ref: committed
  // only as pushes reach them (a pool of 1024 idle workers must not touch 1024 deques up front, nor
  // a pool made after another one: tests/test_lifecycle.cpp IdleWorkersCostLittleMemory), and a slot
  // is always written before it is read (a thief reads slot t only when t < bottom, after the push
  // that wrote it).
  explicit chase_lev_deque(std::size_t capacity)
      : mask_(round_up(capacity) - 1),
        slots_(static_cast<frame**>(map_zero_pages((mask_ + 1) * sizeof(frame*))), free_slots{(mask_ + 1) * sizeof(frame*)}) {}

  // Owner.  False when full: the item then simply stays latent (promotion is always optional).
  // `was_empty`: the deque held nothing (as far as the owner can tell) before this push.
  bool push(frame* f, bool& was_empty) noexcept {
    const std::int64_t b = bottom_.load(std::memory_order_relaxed);
    const std::int64_t t = top_.load(std::memory_order_acquire);
    if (b - t > std::int64_t(mask_)) [[unlikely]] return false;
    was_empty = b - t <= 0;
    WEFT_CHAOS_POINT();  // a thief takes the oldest item while we hold a stale top
    slot(std::size_t(b)).store(f, std::memory_order_relaxed);
    WEFT_CHAOS_POINT();  // the slot written, not yet published
    bottom_.store(b + 1, std::memory_order_release);
    return true;
  }
  bool push(frame* f) noexcept {
    bool was_empty;
    return push(f, was_empty);
  }

  // Owner: the youngest item, or nullptr when a thief took the last one.
  frame* pop() noexcept {
    std::int64_t b;
    return take_bottom(b) ? slot(std::size_t(b)).load(std::memory_order_relaxed) : nullptr;
  }

  // Owner: takes back `f`, which it knows to be the youngest item (the eager join: it pushed `f`, and
  // every item pushed since has been taken back or stolen), or finds that a thief took it.  pop()
  // without reading the slot back: the owner wrote it.  Checked builds compare.
  bool pop_own(const frame* f) noexcept {
    std::int64_t b;
    if (!take_bottom(b)) return false;
    WEFT_ASSERT(slot(std::size_t(b)).load(std::memory_order_relaxed) == f, "deque: the youngest item is not the frame being joined");
    return true;
  }

  // Thief: the oldest item, or nullptr (empty, or lost a race).
  frame* steal() noexcept {
    std::int64_t t = top_.load(std::memory_order_seq_cst);
    WEFT_CHAOS_POINT();  // top read, bottom not: the owner may pop meanwhile
    const std::int64_t b = bottom_.load(std::memory_order_seq_cst);
    if (t >= b) return nullptr;
    frame* f = slot(std::size_t(t)).load(std::memory_order_relaxed);
    WEFT_CHAOS_POINT();  // the item read, not yet won: the owner or another thief may take it
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                      std::memory_order_relaxed))
      return nullptr;
    return f;
  }

  // A racy size: exact for the owner up to concurrent steals, a hint for everyone else.
  std::int64_t size() const noexcept {
    return bottom_.load(std::memory_order_relaxed) - top_.load(std::memory_order_relaxed);
  }

 private:
  static std::size_t round_up(std::size_t n) noexcept {
    std::size_t p = 1;
    while (p < n) p <<= 1;
    return p;
  }
  // The owner's half of a pop: claims index `b` (the youngest item) from the thieves.  False when
  // they took it (the deque is then empty and left consistent).
  bool take_bottom(std::int64_t& b) noexcept {
    b = bottom_.load(std::memory_order_relaxed) - 1;
    bottom_.store(b, std::memory_order_seq_cst);
    WEFT_CHAOS_POINT();  // the bottom claimed, top not read: thieves race for the last item
    std::int64_t t = top_.load(std::memory_order_seq_cst);
    if (t > b) {
      bottom_.store(b + 1, std::memory_order_relaxed);
      return false;
    }
    if (t == b) {  // the last item: race the thieves for it
      WEFT_CHAOS_POINT();
      const bool won = top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed);
      bottom_.store(b + 1, std::memory_order_relaxed);
      return won;
    }
    return true;
  }
  std::atomic_ref<frame*> slot(std::size_t i) const noexcept { return std::atomic_ref<frame*>(slots_[i & mask_]); }
  struct free_slots {
    std::size_t bytes;
    void operator()(frame** p) const noexcept { unmap_zero_pages(p, bytes); }
  };
  const std::size_t mask_;
  std::unique_ptr<frame*[], free_slots> slots_;
  alignas(64) std::atomic<std::int64_t> top_{0};
  alignas(64) std::atomic<std::int64_t> bottom_{0};
};

}  // namespace weft::detail
