// weft — counters (SPEC §6): collecting each worker's into pool::stats(), and resetting them.
#include <algorithm>
#include <cstdint>

#include "pool_runtime.hpp"
#include "weft/pool.hpp"

namespace weft {

counters& counters::operator+=(const counters& o) noexcept {
  joins += o.joins;
  loop_iterations += o.loop_iterations;
  promotions += o.promotions;
  steals += o.steals;
  steal_attempts += o.steal_attempts;
  leapfrogs += o.leapfrogs;
  deque_checks += o.deque_checks;
  idle_ns += o.idle_ns;
  heap_peak_bytes += o.heap_peak_bytes;
  live_threads_peak += o.live_threads_peak;
  fiber_stack_peak_bytes += o.fiber_stack_peak_bytes;
  quota_preemptions += o.quota_preemptions;
  dummy_threads += o.dummy_threads;
  heartbeats_requested += o.heartbeats_requested;
  heartbeats_delivered += o.heartbeats_delivered;
  steal_backoffs += o.steal_backoffs;
  return *this;
}

namespace detail {

namespace {

// The worker's idle time, with the interval in progress up to now: between runs every worker is idle,
// and a worker idle through a whole run closes no interval in it (found by stop 41's bug hunt: it
// read 0).  The count first (acquire: end_idle's release store), then the interval: a reader that
// sees an interval's time counted sees it closed (end_idle says why), so none is counted twice.
std::uint64_t idle_ns_of(const worker& w) {
  std::uint64_t idle = w.idle_ns.load(std::memory_order_acquire);
  if (const std::uint64_t since = w.idle_since.load(std::memory_order_relaxed); since != 0) {
    const std::uint64_t from = std::max(since, w.rt->stats_reset_ns.load(std::memory_order_relaxed));
    const std::uint64_t now = now_ns();
    if (now > from) idle += now - from;
  }
  return idle;
}

counters counters_of(const worker& w) {
  counters c;
  // A loop split takes back its join's count just before the join makes it (loops.hpp,
  // uncount_split): read between the two, the live count is one low, and where it was 0, 2^64 - 1.
  // Read as signed (no count reaches 2^63), such a moment reads one low, or 0; between runs the sum
  // is exact and never negative.
  const auto joins = std::int64_t(w.retired_joins) + std::int64_t(w.hot ? w.hot->joins : 0);
  c.joins = std::uint64_t(std::max<std::int64_t>(joins, 0));
  c.loop_iterations = w.retired_loop_iterations + (w.hot ? w.hot->loop_iterations : 0);
  c.promotions = w.ledger.promotions;
  c.steals = w.steals;
  c.steal_attempts = w.steal_attempts.load(std::memory_order_relaxed);
  c.leapfrogs = w.leapfrogs;
  c.deque_checks = w.deque_checks;
  c.idle_ns = idle_ns_of(w);
  c.heap_peak_bytes = std::uint64_t(w.heap_peak);
  c.live_threads_peak = std::max({w.ledger.unjoined_peak, std::uint64_t(w.ledger.eager_peak_end - w.stack.begin()),
                                  w.fibers_live_peak});
  c.heartbeats_requested = w.beats_requested.load(std::memory_order_relaxed);
  c.heartbeats_delivered = w.beats_delivered;
  c.quota_preemptions = w.quota_preemptions;
  c.dummy_threads = w.dummy_threads;
  c.steal_backoffs = w.steal_backoffs.load(std::memory_order_relaxed);
  return c;
}

void reset_counters_of(worker& w) {
  w.retired_joins = w.retired_loop_iterations = 0;
  if (w.hot) w.hot->joins = w.hot->loop_iterations = 0;
  if (w.trace) w.trace->rebase_promotions(w.ledger.promotions);
  w.ledger.promotions = w.steals = w.leapfrogs = w.deque_checks = 0;
  w.ledger.unjoined_peak = w.ledger.unjoined;
  w.ledger.eager_peak_end = w.stack.begin();  // between runs: no eager join in flight
  w.steal_attempts.store(0, std::memory_order_relaxed);
  w.steal_backoffs.store(0, std::memory_order_relaxed);
  w.beats_requested.store(0, std::memory_order_relaxed);
  w.beats_delivered = 0;
  w.quota_preemptions = w.dummy_threads = 0;
  w.fibers_live_peak = w.fibers_live;
  w.idle_ns.store(0, std::memory_order_relaxed);
  const std::int64_t live = w.heap_live();  // its blocks still live (worker.hpp)
  w.heap_peak = live > 0 ? live : 0;
}

}  // namespace

// The one counter safe to read during a run: each worker's beats_requested is an atomic the timer
// bumps (heartbeat.cpp), so relaxed loads race with nothing; a sum of them is no snapshot of one
// instant, only a count that never runs ahead of the beats sent.
std::uint64_t runtime::beats_requested_now() const noexcept {
  std::uint64_t n = 0;
  if (runs_on_caller) {
    std::lock_guard lk(serial_mu_);
    for (const auto& w : serial_all_) n += w->beats_requested.load(std::memory_order_relaxed);
  } else {
    for (const auto& w : workers) n += w->beats_requested.load(std::memory_order_relaxed);
  }
  return n;
}

std::uint64_t beats_requested_now(const weft::pool& p) noexcept { return p.rt_->beats_requested_now(); }

weft::stats runtime::collect_stats() const {
  weft::stats s;
  // The pool's heap mark (memory.cpp): exact under the fiber engine and serial; otherwise the largest view a
  // worker recorded, and at least the usage at the last reset.
  std::uint64_t heap_mark = heap_peak.load(std::memory_order_relaxed);
  const auto see = [&](const worker& w) {
    if (!uses_fibers && !runs_on_caller) heap_mark = std::max(heap_mark, w.pool_heap_seen.load(std::memory_order_relaxed));
  };
  if (runs_on_caller) {
    counters c;
    std::lock_guard lk(serial_mu_);
    for (const auto& w : serial_all_) {
      c += counters_of(*w);
      see(*w);
    }
    // The pool's one worker allocates every block charged to the pool, whichever caller's context
    // ran it: its mark is the pool's exact one.  The contexts' own marks, summed, counted blocks that
    // were never live at once (stop 47's memory hunt: two callers holding 3000 bytes in turn read
    // 6000, above the pool's 3000).
    c.heap_peak_bytes = heap_mark;
    s.workers.push_back(c);
  } else {
    // Under lend_mu_: a lent slot's `hot` is its borrower's TLS block, which a borrower thread's exit
    // frees; the borrower gives the slot back (`hot` = the worker's own again) under this lock first
    // (root_jobs.cpp, run_on_idle_slot).  Without it a read at that instant touched freed memory
    // (stop 46's hunt).  The counters themselves are still read without a snapshot: exact between runs.
    std::lock_guard lk(lend_mu_);
    for (const auto& w : workers) {
      s.workers.push_back(counters_of(*w));
      see(*w);
    }
  }
  for (const auto& c : s.workers) s.total += c;
  s.total.heap_peak_bytes = heap_mark;
  // The fiber engine counts its threads pool-wide (exact); elsewhere total is the sum of the
  // workers' own peaks (ledger.hpp says why).
  if (traits_of(cfg.policy).runs_on == mechanism::fibers) s.total.live_threads_peak = live.peak.load(std::memory_order_relaxed);
  s.total.fiber_stack_peak_bytes = sched->fiber_stack_peak_bytes();
  return s;
}

void runtime::reset_stats() {
  // The heap mark starts from the usage now: the posted count and every worker's unposted bytes
  // (read between runs, as the other counters are reset).
  std::int64_t now = heap_now.load(std::memory_order_relaxed);
  const auto reset = [&](worker& w) {
    const std::uint64_t requested = w.beats_requested.load(std::memory_order_relaxed);
    reset_counters_of(w);
    // A beat sent before the reset and not yet taken (an idle worker sends them between runs under
    // spare delivery) is still to be delivered: it counts as requested, so that delivered never
    // exceeds requested.
    const bool pending =
        heartbeat_bits != 0 && w.hot != nullptr && (w.hot->poll.load(std::memory_order_relaxed) & heartbeat_bits) != 0;
    if (pending) w.beats_requested.store(1, std::memory_order_relaxed);
    // The trace counts over the pool's life (found by stop 41's bug hunt: after a reset its file
    // said fewer beats requested than its beat events showed delivered); the pending beat is in
    // both `requested` and the new count, so it is kept once.
    w.beats_requested_before_reset.fetch_add(requested - (pending && requested > 0 ? 1 : 0), std::memory_order_relaxed);
    now += w.heap_unposted.load(std::memory_order_relaxed);
    w.pool_heap_seen.store(0, std::memory_order_relaxed);
  };
  if (runs_on_caller) {
    std::lock_guard lk(serial_mu_);
    for (auto& w : serial_all_) reset(*w);
  } else {
    // Under lend_mu_, as a beat's sender is (send_beat_if_due): senders keep beating idle workers
    // between runs (spare delivery), and a bump of beats_requested or a beat's bit landing between
    // this reset's read and store of the count undid the reset or left a pending beat uncounted
    // (delivered > requested in the next run's stats).  The lock also keeps a lent slot's `hot`, its
    // borrower's TLS block, valid while the pending bit is read.
    std::lock_guard lk(lend_mu_);
    for (auto& w : workers) reset(*w);
  }
  heap_peak.store(now > 0 ? std::uint64_t(now) : 0, std::memory_order_relaxed);
  stats_reset_ns.store(now_ns(), std::memory_order_relaxed);
  const std::int64_t live_now = live.now.load(std::memory_order_relaxed);
  live.peak.store(live_now > 0 ? std::uint64_t(live_now) : 0, std::memory_order_relaxed);
  sched->reset_peaks();
}

}  // namespace detail
}  // namespace weft
