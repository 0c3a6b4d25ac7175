// weft — a worker's promotion ledger: the counters every promotion and every join of a promoted item
// update (SPEC §6: promotions, live_threads_peak).  In a header because the eager join (eager.hpp)
// promotes and takes back inline; every other promotion updates it from the runtime's slow path.
#pragma once

#include <atomic>
#include <cstdint>

namespace weft::detail {

// The pool's live threads now and at their peak: counters::live_threads_peak in stats::total, the
// true simultaneous maximum (SPEC §5).  Relaxed suffices: `now` is one variable, so its RMWs form
// one modification order and each returns the exact count at its place in it; the peak is the
// maximum of those counts, whatever other memory is doing meanwhile.
struct live_threads {
  std::atomic<std::int64_t> now{0};
  std::atomic<std::uint64_t> peak{0};
  void add() noexcept {
    const std::int64_t n = now.fetch_add(1, std::memory_order_relaxed) + 1;
    std::uint64_t p = peak.load(std::memory_order_relaxed);
    while (n > 0 && std::uint64_t(n) > p && !peak.compare_exchange_weak(p, std::uint64_t(n), std::memory_order_relaxed)) {
    }
  }
  void sub() noexcept { now.fetch_sub(1, std::memory_order_relaxed); }
};

// Written only by the thread holding the worker's slot (read by pool::stats() after the run that
// wrote it has returned, as hot_state's counters are).
struct promotion_ledger {
  explicit promotion_ledger(live_threads* pool) noexcept : pool_live(pool) {}
  std::uint64_t promotions = 0;
  // Promoted items of this worker not yet joined (on its deque, or tagged public under wool), and
  // their high-water mark since the last reset: counters::live_threads_peak (SPEC §6).
  std::uint64_t unjoined = 0, unjoined_peak = 0;
  live_threads* const pool_live;  // the runtime's (stats::total's live_threads_peak)

  void note_promotion() noexcept {
    ++promotions;
    if (++unjoined > unjoined_peak) unjoined_peak = unjoined;
    pool_live->add();
  }
  // A promoted item of this worker was joined (taken back, or waited for).
  void note_joined() noexcept {
    if (unjoined == 0) return;
    --unjoined;
    pool_live->sub();
  }
};

}  // namespace weft::detail
