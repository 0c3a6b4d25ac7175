// weft — a worker's promotion ledger: the counters every promotion and every join of a promoted item
// update (SPEC §6: promotions, live_threads_peak).  In a header because the eager join (eager.hpp)
// promotes and takes back inline; every other promotion updates it from the runtime's slow path.
//
// Owner-private, as SPEC §6 asks of every counter ("per-worker, unshared"): no promotion touches a
// line that another worker writes.  An earlier version also kept the pool's live count in one shared
// atomic, RMW'd at every promotion and every join of a promoted item, for an exact pool-wide
// simultaneous maximum; under ws, where every join is a promotion, that made fib(30) 1.6x slower on
// one worker and 15x slower on two than without it (the two workers' RMWs bouncing one cache line:
// docs/results/fine-grained.md, "after").  An exact simultaneous maximum of counts that change on
// different cores needs communication at every change, so the pool's total is now the sum of the
// workers' own peaks (pool::stats): an upper bound of the simultaneous maximum, equal to it on one
// worker.  The fiber engine, whose threads migrate between workers and are made under its scheduler
// lock anyway, keeps the exact pool-wide count (live_threads, src/worker.hpp).
#pragma once

#include <atomic>
#include <cstdint>

#include "frame.hpp"

namespace weft::detail {

// Written only by the thread holding the worker's slot (read by pool::stats() after the run that
// wrote it has returned, as hot_state's counters are).
struct promotion_ledger {
  // Promoted items of this worker not yet joined (on its deque, or tagged public under wool), and
  // their high-water mark since the last reset: counters::live_threads_peak (SPEC §6).
  std::uint64_t unjoined = 0, unjoined_peak = 0;
  // Not next to `unjoined`: side by side, gcc increments the two with one 16-byte load, add and
  // store, and the next promotion's 16-byte load then waits on note_joined's 8-byte store of
  // `unjoined` (no store-to-load forwarding across the two) — under ws, at every other join.
  std::uint64_t promotions = 0;
  // `promotions` is the owner's, but pool::write_trace reads it during a run (a snapshot: the
  // trace's dropped-promotion count): the owner's increment is a relaxed atomic store of its own
  // value plus one — on x86 the same load, add and store as `++` — so that the reader's relaxed
  // load (promotions_now) is no data race (stop 40's bug hunt, ThreadSanitizer).
  void count_promotion() noexcept {
    std::atomic_ref<std::uint64_t>(promotions).store(promotions + 1, std::memory_order_relaxed);
  }
  std::uint64_t promotions_now() const noexcept {
    return std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(promotions)).load(std::memory_order_relaxed);
  }

  // The eager join's promotions (eager.hpp) are counted here too, but not its joins: under ws every
  // frame on the worker's task stack is a promoted item not yet joined (a join's or a spawn's frame,
  // on the deque or with its thief), so those in flight when the eager join pushes `fr` are the
  // frames up to `fr`, and their peak is where the deepest one ended.  Two instructions per join
  // instead of an increment, a compare and a decrement of `unjoined`; counters::live_threads_peak is
  // the larger of this depth and unjoined_peak (stats.cpp; ws-ap's loop frames count in the depth,
  // their split-off children in `unjoined`).  Reset to the task stack's start (no frame).
  const frame* eager_peak_end = nullptr;

  // A plain increment: the eager join runs only in a pool that does not trace, whose write_trace
  // reads no counter (one instruction a promoted join under ws, where count_promotion is three).
  void note_eager_promotion(const frame* fr) noexcept {
    ++promotions;
    if (fr >= eager_peak_end) eager_peak_end = fr + 1;
  }

  void note_promotion() noexcept {
    count_promotion();
    if (++unjoined > unjoined_peak) unjoined_peak = unjoined;
  }
  // A promoted item of this worker was joined (taken back, or waited for).  None is joined that was
  // not promoted, but a reset between the two (reset_stats) leaves the count as it was.
  void note_joined() noexcept {
    if (unjoined != 0) --unjoined;
  }
};

}  // namespace weft::detail
