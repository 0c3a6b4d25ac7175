// weft — heartbeat delivery (HB §2): every N us a beat sets every worker's `heartbeat` poll bit; the
// worker promotes at its next poll (sched_deque.cpp).  Who sends a beat depends on
// config::heartbeat_delivery (beat_signal.cpp has the third way, per-thread timers):
//   thread  the pool's timer thread sends every beat (HB's rule taken literally);
//   spare   (the default) beats come from capacity no worker's task is using: the timer thread
//           while some core runs no awake worker, and otherwise the workers that are looking for
//           work or waiting at a blocked join — never the timer thread on a core a busy worker
//           holds.  While every core runs a busy worker, no beat is sent — but once a
//           millisecond if some worker sleeps meanwhile (timer_rate below).
//
// Why `spare`: a timer wake-up on a core a busy worker holds costs that worker far more than the
// beat's promotion.  Measured on the 2-core VMs: ~27 us of the busy threads' time per wake-up
// (an empty 40 us timer beside two threads computing made them 1.5x slower,
// docs/results/heartbeat-delivery.md), against ~1.2 us for a promotion (HB's tau): the timer
// thread, not the promotions, cost heartbeat its 2-worker speedup (1.44x where lazy-bf reached 2.0).
// HB's own implementation (HB §4) has no timer thread: each worker polls the cycle counter.  A
// counter read at every join costs more than the join here (adaptive.md, "How a beat is noticed"),
// so weft keeps the flag, and sends it from where a cycle is free.  While every core runs a busy
// worker there is no thief for a promoted frame; the first worker to run out of work becomes a
// sender and the beat that is due reaches the others at once — their next poll promotes, the
// work/span argument of HB §3 applies to every interval in which some worker idles, and an
// interval in which all are busy is one a greedy schedule already counts as full.
#include <sys/prctl.h>

#include <algorithm>
#include <chrono>

#include "weft/detail/chaos.hpp"
#include "pool_runtime.hpp"

namespace weft::detail {

// Sends the beat that is due at `now`, if it is: one sender per period wins the deadline's CAS
// (the timer, or one of several idle workers).  Missed periods are not made up: a beat that comes
// late moves the next deadline to a period after it.  The deadline is a plain schedule, no data
// travels with it, but the first deadline is stored (release) only once every worker's `hot` is
// set, and a sender acquires it (every later value is a CAS, in that store's release sequence)
// before it follows those pointers (PROTOCOLS.md §6).
bool runtime::send_beat_if_due(std::uint64_t now, trace_buffer* lane) {
  std::uint64_t due = next_beat_ns_.load(std::memory_order_acquire);
  if (now < due) return false;
  std::uint64_t next = due + beat_period_ns_;
  if (next <= now) next = now + beat_period_ns_;
  if (!next_beat_ns_.compare_exchange_strong(due, next, std::memory_order_acquire, std::memory_order_relaxed))
    return false;
  // Under lend_mu_ (for_each_poll_word says why), which also serializes the senders' bumps of
  // beats_requested.
  const bool sent = for_each_poll_word([&](worker& w) {
    WEFT_CHAOS_POINT();  // a beat reaches the workers one by one, at any point of their polls
    bump(w.beats_requested);  // first: a beat is counted requested before a poll can take it
    w.hot->poll.fetch_or(heartbeat_bits, std::memory_order_relaxed);
  });
  if (!sent) return false;
  if (lane != nullptr) lane->instant(trace_kind::heartbeat_sent, std::uint32_t(workers.size()), 0);
  return true;
}

// Threads holding a slot and awake: the workers neither in sleep() nor waiting to take their
// slot back from a borrower, and the callers of pool::run running in a lent slot (whose own
// worker thread is one of those two).
// The three loads are not one snapshot: a thread between sleep() and take_back_slot may be counted
// twice while its slot's borrower has already left, so the sum is clamped at 0; every change is
// followed by an epoch bump, after which the timer reads the counts again.
std::size_t runtime::awake_threads() const noexcept {
  const auto asleep = std::int64_t(sleepers_.load(std::memory_order_seq_cst));
  const auto waiting = std::int64_t(slot_waiters_.load(std::memory_order_seq_cst));
  const auto lent = std::int64_t(lent_slots_.load(std::memory_order_seq_cst));
  const std::int64_t awake = std::int64_t(workers.size()) - asleep - waiting + lent;
  return awake > 0 ? std::size_t(awake) : 0;
}

// How often may the timer thread beat now?  Not at all while every worker sleeps (there is nobody
// to beat).  Under spare delivery, every N only while the awake threads leave a core free; when
// they fill every core (the timer would take a busy worker's core: this file's header), not at
// all — unless some worker sleeps: then once per spare_fallback_ns, so that a busy worker's latent
// work still reaches a sleeping worker within about a millisecond, at one wake-up per millisecond
// (~3 % of a core on these VMs).  That happens only when the pool has more workers than the
// process has CPUs (a 1-CPU process, an oversubscribed pool): with as many workers as cores, no
// worker sleeps while every core runs a busy one.  Without it a branch that waits for another
// branch to run elsewhere would wait forever there (found by the chaos stage: 8 workers on 1 CPU).
runtime::beat_rate runtime::timer_rate() const noexcept {
  const std::size_t awake = awake_threads();
  if (awake == 0) return beat_rate::none;
  if (!beats_from_spare() || awake < cores_) return beat_rate::every_period;
  return sleepers_.load(std::memory_order_seq_cst) != 0 ? beat_rate::fallback : beat_rate::none;
}

void runtime::heartbeat_main() {
#ifdef PR_SET_TIMERSLACK
  ::prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);  // wake within ~1 us of the deadline, not 50 us
#endif
  bool fallback = false;        // the rate of the last pass was beat_rate::fallback
  std::uint64_t last_sent = 0;  // when this thread last sent a beat (now_ns time)
  while (!stopping_.load(std::memory_order_acquire)) {
    std::uint64_t at = next_beat_ns_.load(std::memory_order_relaxed);
    if (fallback) at = std::max(at, last_sent + spare_fallback_ns);
    {
      std::unique_lock lk(beat_mutex_);
      const auto when = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(at));
      if (beat_cv_.wait_until(lk, when, [&] { return stopping_.load(std::memory_order_acquire); })) break;
    }
    // Park while the timer may not beat; a worker that sleeps or wakes, and a lent slot that is
    // taken or given back, bump the epoch after changing the counts (PROTOCOLS.md §6: the epoch is
    // read before the counts, all seq_cst, so no change is missed).
    const std::uint32_t e = awake_epoch_.load(std::memory_order_seq_cst);
    const beat_rate rate = timer_rate();
    if (rate == beat_rate::none) {
      fallback = false;
      if (!stopping_.load(std::memory_order_acquire)) awake_epoch_.wait(e, std::memory_order_seq_cst);
      // The next beat a period from now, unless spare senders kept the schedule meanwhile: a pool
      // that wakes gets its first beat after N of work, as at its start.
      const std::uint64_t now = now_ns();
      std::uint64_t d = next_beat_ns_.load(std::memory_order_relaxed);
      if (d < now) next_beat_ns_.compare_exchange_strong(d, now + beat_period_ns_, std::memory_order_relaxed);
      continue;
    }
    const std::uint64_t now = now_ns();
    fallback = rate == beat_rate::fallback;
    if (fallback && now < last_sent + spare_fallback_ns) continue;  // the rate fell while this thread waited
    if (send_beat_if_due(now, timer_trace_.get())) last_sent = now;
  }
}

void runtime::wake_heartbeat() noexcept {
  awake_epoch_.fetch_add(1, std::memory_order_seq_cst);
  awake_epoch_.notify_all();
}

}  // namespace weft::detail
