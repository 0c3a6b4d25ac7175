// weft — a thread acting as a worker of a runtime for a while (root jobs on lent slots and serial
// contexts, src/root_jobs.cpp; component tests driving a runtime by hand, tests/component_rig.hpp).
#pragma once

#include <utility>

#include "eh_state.hpp"
#include "pool_runtime.hpp"

namespace weft::detail {

// The calling thread acts as worker `w` while it lives: its hot state points at w's task stack
// (which holds no frames), and is restored afterwards; the joins and loop iterations it counts
// meanwhile are w's (retired_*).  Used for serial contexts and for lent slots.
class acting_as {
 public:
  acting_as(worker& w, std::uint32_t poll_bits, loop_style loops, chase_lev_deque* eager) noexcept
      : w_(w), h_(tls_hot),
        // exchange, not load-then-store: a bit another pool's thief sets in between is kept (it
        // is either in saved_poll_ or set after the exchange; the closing fetch_or keeps both).
        saved_poll_(h_.poll.exchange(poll_bits, std::memory_order_relaxed)), saved_top_(h_.top),
        saved_self_(h_.self), saved_joins_(h_.joins), saved_iters_(h_.loop_iterations),
        saved_loops_(h_.loops_run_as), saved_base_(w.base), saved_eager_deque_(h_.eager_deque),
        saved_eager_ledger_(h_.eager_ledger), saved_spawn_limit_(h_.spawn_limit) {
    h_.self = &w;
    h_.exceptions_in_flight = &thread_eh_state()->uncaught;  // this thread's for good: not restored
    h_.spawn_limit = spawn_limit_for(w, poll_bits);
    h_.eager_deque = eager;
    h_.eager_ledger = &w.ledger;
    h_.top = w.stack.begin();
    h_.scan_base = nullptr;  // another stack: the oldest-first check's floor is not this one's
    h_.joins = h_.loop_iterations = 0;
    h_.loops_run_as = loops;
    w.base = h_.top;
  }
  ~acting_as() {
    if (!left_) leave_slot();
    h_.self = saved_self_;
    h_.top = saved_top_;
    h_.scan_base = nullptr;
    h_.joins = saved_joins_;
    h_.loop_iterations = saved_iters_;
    // Keeps bits others set meanwhile, and gives back the other pool's beats the run put aside.
    h_.poll.fetch_or(saved_poll_ | deferred_poll_bits_, std::memory_order_relaxed);
    h_.loops_run_as = saved_loops_;
    h_.eager_deque = saved_eager_deque_;
    h_.eager_ledger = saved_eager_ledger_;
    h_.spawn_limit = saved_spawn_limit_;
  }
  // Done with `w` before the thread's state is restored (the fiber engine's borrower that gives its
  // slot back while its job runs on: run_on_idle_slot): what the run leaves in `w` is settled now,
  // while the caller still holds the slot, and the destructor touches only this thread's state.
  // The thread must run no job of the pool meanwhile.
  void leave_slot() noexcept {
    WEFT_ASSERT(h_.top == w_.base, "a root job returned with frames left on its task stack");
    w_.base = saved_base_;
    w_.retire_counts(h_);
    deferred_poll_bits_ = std::exchange(w_.deferred_poll_bits, 0u);
    left_ = true;
  }
  acting_as(const acting_as&) = delete;
  acting_as& operator=(const acting_as&) = delete;
  hot_state& hot() const noexcept { return h_; }

 private:
  worker& w_;
  hot_state& h_;
  const std::uint32_t saved_poll_;
  frame* const saved_top_;
  worker* const saved_self_;
  const std::uint64_t saved_joins_, saved_iters_;
  const loop_style saved_loops_;
  frame* const saved_base_;
  chase_lev_deque* const saved_eager_deque_;
  promotion_ledger* const saved_eager_ledger_;
  frame* const saved_spawn_limit_;
  std::uint32_t deferred_poll_bits_ = 0;  // another pool's bits put aside on `w` (leave_slot)
  bool left_ = false;
};

}  // namespace weft::detail
