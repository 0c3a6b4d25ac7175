// weft — heartbeat delivery (HB §2): one timer thread per pool sets every worker's `heartbeat` poll
// bit every N us; the worker promotes at its next poll (sched_deque.cpp).
#include <sys/prctl.h>

#include <chrono>

#include "weft/detail/chaos.hpp"
#include "pool_runtime.hpp"

namespace weft::detail {

// A worker pays nothing when no beat is due (its poll is the same load as always) and one
// cache-line transfer when one is.  While every worker sleeps, the timer sleeps too.
void runtime::heartbeat_main() {
#ifdef PR_SET_TIMERSLACK
  ::prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);  // wake within ~1 us of the deadline, not 50 us
#endif
  const auto period = std::chrono::duration_cast<std::chrono::nanoseconds>(cfg.heartbeat);
  auto next = std::chrono::steady_clock::now() + period;
  while (!stopping_.load(std::memory_order_acquire)) {
    {
      std::unique_lock lk(beat_mutex_);
      if (beat_cv_.wait_until(lk, next, [&] { return stopping_.load(std::memory_order_acquire); })) break;
    }
    const auto now = std::chrono::steady_clock::now();
    next += period;
    if (next < now) next = now + period;  // beats missed while descheduled are not made up
    {
      // Under lend_mu_: a lent slot's `hot` is its borrower's TLS block, valid only while lent.
      std::lock_guard lk(lend_mu_);
      for (auto& w : workers) {
        WEFT_CHAOS_POINT();  // a beat reaches the workers one by one, at any point of their polls
        w->hot->poll.fetch_or(heartbeat_bits, std::memory_order_relaxed);
        bump(w->beats_requested);  // this thread is its only writer
      }
    }
    if (timer_trace_) timer_trace_->instant(trace_kind::heartbeat_sent, std::uint32_t(workers.size()), 0);
    // Park while every worker sleeps and no slot is lent (a borrower bumps the epoch after counting
    // itself in lent_slots_, as a waking worker does after leaving sleepers_).
    const std::uint32_t e = awake_epoch_.load(std::memory_order_acquire);
    if (sleepers_.load(std::memory_order_seq_cst) == workers.size() &&
        lent_slots_.load(std::memory_order_seq_cst) == 0 && !stopping_.load(std::memory_order_acquire)) {
      awake_epoch_.wait(e, std::memory_order_acquire);
      next = std::chrono::steady_clock::now() + period;
    }
  }
}

}  // namespace weft::detail
