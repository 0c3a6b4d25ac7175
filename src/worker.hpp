// weft — a worker: the state every mechanism shares (its task stack, its counters, its thread).
// What a mechanism keeps per worker (the Chase-Lev deque, Wool's public window, the fiber engine's
// current thread and dfd's deque) is a type that mechanism defines (sched_deque.cpp, sched_wool.cpp,
// sched_fibers.cpp) and creates; the worker only holds it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "native_thread.hpp"
#include "task_stack.hpp"
#include "measure.hpp"
#include "trace.hpp"
#include "weft/detail/frame.hpp"
#include "weft/detail/ledger.hpp"
#include "weft/detail/loop.hpp"

namespace weft::detail {

class runtime;

// The base of each mechanism's per-worker state: the worker holds it in one slot, and only the
// scheduler that created it (scheduler::attach) knows its type.
struct mechanism_state {
  virtual ~mechanism_state() = default;
};

// Who holds a worker's slot (its task stack, mechanism state, counters, `hot`): its own thread, or,
// while that thread sleeps, a thread outside the pool that runs a root job on it
// (runtime::run_on_idle_slot, root_jobs.cpp; docs/PROTOCOLS.md section 9).
namespace slot_tenure {
inline constexpr std::uint32_t held = 0;      // the worker's own thread holds it
inline constexpr std::uint32_t lendable = 1;  // its thread sleeps and touches nothing of the slot
inline constexpr std::uint32_t lent = 2;      // a caller of pool::run holds it
}  // namespace slot_tenure

// The fiber engine's live threads now and at their peak (its stats::total.live_threads_peak, exact).
// Relaxed suffices: `now` is one variable, so its RMWs form one modification order and each returns
// the exact count at its place in it; the peak is the maximum of those counts, whatever other memory
// is doing meanwhile.
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

struct worker {
  worker(runtime* owner, unsigned idx, std::size_t capacity);

  runtime* const rt;
  const unsigned index;
  // The TLS block of the thread running this worker: its own thread's, or a borrower's while the
  // slot is lent (changed only under runtime::lend_mu_, which the heartbeat timer holds to use it).
  hot_state* hot = nullptr;
  task_stack stack;
  // Frames below `base` belong to tasks suspended under the one now running (a blocked join that
  // leapfrogs, or the worker's stolen task's caller): they are never promoted from here.
  frame* base;
  // This worker's state in the pool's mechanism (set by scheduler::attach before first use).
  std::unique_ptr<mechanism_state> mechanism;

  // slot_tenure: handed over with release stores and acquiring CASes (PROTOCOLS.md section 9).
  std::atomic<std::uint32_t> tenure{slot_tenure::held};

  // Transitive leapfrogging: the thief this worker waits for in a blocked join, or -1.
  std::atomic<int> blocked_on{-1};
  // Since when this worker's innermost blocked join has waited for its thief (now_ns; 0: none),
  // beside `blocked_on`: written by the slot's holder (wait_stolen), read by that thief as its task
  // ends (execute_stolen), relaxed — a hint for the steal backoff, which a stale value only makes
  // wait or not wait once.
  std::atomic<std::uint64_t> join_wait_since{0};
  // A blocked join that found nothing to leapfrog for ~1 ms sleeps (runtime::park_until_done) until
  // the thief of its frame bumps `unpark_epoch` (runtime::execute_stolen).
  std::atomic<bool> parked{false};
  std::atomic<std::uint32_t> unpark_epoch{0};

  // Counters written only by this worker (see hot_state for the reading rule).
  std::uint64_t steals = 0, leapfrogs = 0, deque_checks = 0;
  // DF-LS (innermost first) under the lazy hold: the innermost latent item when a check held its
  // promotion while no thief looked — the item LS would have promoted then.  The next check that
  // promotes gives it first (sched_deque.cpp, promote_below_threshold).  Owner-private.
  frame* held_item = nullptr;
  // Offers nobody took (sched_deque.cpp, promote_below_threshold): items this worker's lazy checks
  // promoted since a thief last took one of its items, the thefts from it seen then, and the other
  // workers' search rounds seen at its last promotion past futile_offers.  Owner-private.
  std::uint64_t offered_untaken = 0, thefts_seen = 0, rounds_seen = 0;
  // Written by thieves, read by this worker's checks: its items they took (steal), and, as a thief
  // itself, its search rounds (runtime::search_round: the idle loop, blocked joins).
  std::atomic<std::uint64_t> thefts_suffered{0}, search_rounds{0};
  promotion_ledger ledger;  // promotions and promoted items not yet joined (ledger.hpp)
  // This worker's own figure (counters::heap_peak_bytes per worker): the bytes of the blocks it
  // allocated that are still live, and their high-water mark since the last reset.  heap_now counts
  // its allocations and its frees of its own blocks; a block of its freed by anyone else (another
  // worker, a plain thread, another pool's worker: memory.cpp, block_header::owner) is added to
  // heap_freed_elsewhere instead, so its live bytes are heap_now - heap_freed_elsewhere.  Before,
  // the freeing worker was credited: a block freed elsewhere stayed in its allocator's count for
  // good (one worker: workers[0] showed 1 MiB more than total for ever after such a free, reset or
  // not) and drove the freer's below zero (stop 43's bug hunt).
  std::int64_t heap_now = 0, heap_peak = 0;
  std::atomic<std::int64_t> heap_freed_elsewhere{0};  // relaxed fetch_add by the freeing thread
  std::int64_t heap_live() const noexcept { return heap_now - heap_freed_elsewhere.load(std::memory_order_relaxed); }
  // The pool's heap high-water without a shared write per call (memory.cpp): bytes this slot has
  // not yet posted to runtime::heap_now, and the largest pool count it has seen with them.
  std::atomic<std::int64_t> heap_unposted{0};
  std::atomic<std::uint64_t> pool_heap_seen{0};
  std::uint64_t quota_preemptions = 0, dummy_threads = 0;  // the fiber engine's (NAR §5.3)
  // The fiber engine's threads forked on this worker and not yet terminated, and their high-water
  // mark (counters::live_threads_peak per worker; the pool's exact total is runtime::live).  Written
  // under the engine's scheduler lock by whichever worker forks or ends the thread (threads migrate),
  // read by stats() between runs.  Before stop 43's bug hunt every worker read 0 under the engine.
  std::uint64_t fibers_live = 0, fibers_live_peak = 0;
  // Serial contexts: counts of finished runs (the one in progress counts in its caller's TLS block,
  // the context's `hot` meanwhile).  A slot: what a borrower or, before lending it, its own thread counted.
  std::uint64_t retired_joins = 0, retired_loop_iterations = 0;
  // Moves the counts of a TLS block that counted for this slot into the retired ones, leaving the
  // block's at 0 (its thread or borrower done counting here, or about to count elsewhere).
  void retire_counts(hot_state& h) noexcept {
    retired_joins += std::exchange(h.joins, 0);
    retired_loop_iterations += std::exchange(h.loop_iterations, 0);
  }
  // Counters written by the idle loop while a stats() reader may be running.
  std::atomic<std::uint64_t> steal_attempts{0}, idle_ns{0}, steal_backoffs{0};

  // A victim choice (the idle loop's random victim; dfd's steal among the leftmost p deques, NAR
  // Fig 6.4): xorshift's 64-bit generator (shifts 13, 7, 17), owner-private, uniform enough for a choice among a few.
  std::uint64_t rng;
  std::size_t random_below(std::size_t n) noexcept {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return std::size_t(rng % n);
  }
  native_thread thread;  // its own native stack of config::stack_bytes
  // The native stack a borrower of this slot runs its job on, or, a serial context, the serial
  // policy's caller (config::stack_bytes, mapped on first use; owner-private: used by whoever
  // holds the slot, see slot_tenure, or the context).
  native_stack run_stack;
  // A serial context in use: the worker the calling thread acted as when its run began (nullptr: a
  // thread of no pool).  runs_in looks through it: a run of that worker's pool nested in the serial
  // run runs inline, as it would without the serial pool between (owner-private: the context's).
  worker* serial_caller = nullptr;
  // Poll bits of another pool that reached this worker's polls while a thread acted as it (a beat
  // of the heartbeat pool whose task runs a serial pool's job: scheduler.hpp, foreign_poll_bits),
  // given back to that thread's own poll word when it stops acting (acting_as).  Owner-private.
  std::uint32_t deferred_poll_bits = 0;
  // When this worker last became idle (0: busy).  Written by the slot's holder only; atomic because
  // stats() adds the interval in progress (counters_of; the order of the two writes in end_idle).
  std::atomic<std::uint64_t> idle_since{0};
  bool searching = false;        // counted in runtime::searching_ (owner-private)
  // The steal backoff (idle.cpp; owner-private): the work of the last task this worker stole — its
  // time less its joins' waits for their thieves (execute_stolen; none_stolen until a steal) — and
  // its whole time; how long its victim had waited at that task's join when it ended (0: it had not
  // reached the join); the time this worker's blocked joins have waited, all told (wait_stolen); and
  // the wait after the last small theft (0: none).
  static constexpr std::uint64_t none_stolen = ~std::uint64_t(0);
  std::uint64_t stolen_task_ns = none_stolen, stolen_task_wall_ns = 0, stolen_victim_wait_ns = 0;
  std::uint64_t waited_ns = 0;
  std::uint64_t backoff_ns = 0;

  // Heartbeats (HB §2) measured, not assumed: beats sent to this slot (thread delivery: by the timer
  // thread alone; signal delivery: by the beat handler of the thread holding the slot, which counts
  // every timer expiry, merged ones too), and beats that reached one of its polls (the owner alone
  // writes that).  beat_timer_error: signal delivery, the errno of this thread's timer_create.
  std::atomic<std::uint64_t> beats_requested{0};
  // Beats requested before the last reset_stats (the trace's `heartbeats_requested` covers the
  // pool's life, as its beat events do; written by reset_stats between runs, read by write_trace).
  std::atomic<std::uint64_t> beats_requested_before_reset{0};
  std::uint64_t beats_delivered = 0;
  int beat_timer_error = 0;

  // The timeline trace (trace.hpp): null when tracing is off, which is all the hooks test.
  std::unique_ptr<trace_buffer> trace;
  void trace_enter(activity a) noexcept {
    if (trace) trace->enter(a);
  }
  void trace_leave() noexcept {
    if (trace) trace->leave();
  }

  // The work/span mode's sums (measure.hpp): made by the first job this worker measures.
  std::unique_ptr<measure_state> measure;

  // Split-off loop ranges (loop frames), allocated and freed by this worker only.
  std::vector<loop_child*> free_children;
  std::vector<std::unique_ptr<loop_child[]>> child_blocks;
};

// Where a scope's spawned frames stop on w's task stack (hot_state::spawn_limit): half-way up, the
// rest for the joins nested in them.  Null where every spawn runs at once instead — on the fiber
// engine's workers and in the work/span mode (the poll bits `fibers`, `measure`): a scope reads the
// limit alone to know it must go to its slow path (scope.hpp), never the poll word.
inline frame* spawn_limit_for(worker& w, std::uint32_t poll_bits) noexcept {
  if (poll_bits & (poll_bit::fibers | poll_bit::measure)) return nullptr;
  return w.stack.begin() + w.stack.capacity() / 2;
}

}  // namespace weft::detail
