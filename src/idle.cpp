// weft — the idle loop: looking for work (root jobs, random victims), backing off after thefts too
// small to pay for themselves, spinning, then sleeping without losing a wake-up, and waking.
#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "beat_signal.hpp"
#include "config_resolve.hpp"
#include "native_thread.hpp"
#include "weft/detail/chaos.hpp"
#include "pool_runtime.hpp"
#include "weft/detail/checks.hpp"

namespace weft::detail {

void runtime::worker_main(worker& w) {
  // Idle time runs from here, or from the end of the last task, to the start of the next one
  // (execute_stolen / run_root close the interval): looking for work and sleeping both count.
  std::uint64_t last_work = now_ns();
  w.idle_since.store(last_work, std::memory_order_relaxed);
  if (w.trace) w.trace->replace(activity::stealing);
  begin_search(w);
  unsigned fails = 0;
  while (!stopping_.load(std::memory_order_acquire)) {
    if (find_work(w)) {
      last_work = now_ns();
      w.idle_since.store(last_work, std::memory_order_relaxed);
      begin_search(w);
      fails = 0;
      const std::uint64_t ran = std::exchange(w.stolen_task_ns, worker::none_stolen);
      if (ran != worker::none_stolen) back_off_after_steal(w, ran, last_work);
      continue;
    }
    ++fails;
    send_spare_beat(w);  // this core is spare while it looks: the busy workers' beats come from here
    // Proof that this thread is looking (runtime::search_round): its first failure after work, and
    // every 64th after that.
    if (fails == 1 || (fails & 63) == 0) search_round(w);
    if (fails < 64) {
      cpu_relax();
      continue;
    }
    std::this_thread::yield();
    if ((fails & 15) == 0 && now_ns() - last_work > spin_before_sleep_ns) {
      if (made_before_fork()) [[unlikely]] end_forked_child();
      sleep(w);
      last_work = now_ns();
      fails = 0;
    }
  }
  end_idle(w);
  if (w.trace) w.trace->replace(activity::shutdown);
  // A writer of other workers' poll words still in its loop — a spare heartbeat sender, or a worker
  // re-arming the lazy checks (rearm_held_checks) — may be about to write this thread's poll word
  // (its TLS block, which ends with the thread, and with it the native stack it lies at the top
  // of, unmapped as soon as the pool joins this thread): wait for it; any later writer sees
  // `stopping_` (for_each_poll_word).  Under every policy: it was made for the heartbeat's spare
  // senders only, so a lazy worker's re-arming could write into a joined worker's unmapped TLS —
  // the likely cause of the TSan SEGVs of stops 33 and 34 (docs/PROTOCOLS.md §5 and §6).
  std::lock_guard lk(lend_mu_);
}

// The steal backoff (config::steal_backoff; README, "Small work").  A theft costs its victim more
// than the thief: the promotion, the cache lines of the frame and its result crossing cores, and a
// join that waits for the thief — about 1.4 us on these machines (docs/results/core.md), where a
// whole repetition of small work may take 1 us.  An idle thief that keeps taking such pieces makes
// the program slower with every worker added (issue 9's small work: 2.5-4x at 2 workers).  So, as HB
// amortizes a promotion against N of work (HB §2), a thief amortizes its thefts: after a small theft
// (its task's own work came to less than small_theft, config_resolve.hpp: 8 us, 16 under Wool;
// execute_stolen measures it, less the time the task's joins waited for their thieves; since stop 65
// a theft whose work overlapped its victim's own by theft_overlap_gain, 2 us, or more is followed
// by no wait, but ends no run of small thefts; not under Wool) it waits,
// 1 us, then twice as long after each small theft in a row, up to the limit
// (config::steal_backoff); a theft of a larger task resets the wait.  A run of small thefts then costs its victims at most about one theft per limit
// (~0.5 % at 256 us), and a thief that waits looks again within the limit, so work that appears
// meanwhile waits at most that long for it, once per run of small thefts (a root job or the pool's
// shutdown end the wait at once).  While it waits the thief reads no other worker's
// memory and yields its core (an oversubscribed victim gets it).  Only steals from this loop count:
// a blocked join's leapfrogs never wait.  It stays a searcher while it waits (begin_search above):
// a publisher that skips a wake because of it is served when the wait ends.
static_assert(max_steal_backoff_us * 1000 <= std::int64_t(spin_before_sleep_ns),
              "a waiting thief yields but never sleeps: its longest wait stays within the idle spin");
void runtime::back_off_after_steal(worker& w, std::uint64_t ran_ns, std::uint64_t now) {
  // Unset (-1) under the policies with no stealing workers (config.cpp): no wait.
  const auto limit_ns = std::uint64_t(std::max<std::int64_t>(0, std::chrono::nanoseconds(cfg.steal_backoff).count()));
  const theft_size size = size_of_theft(ran_ns, w.stolen_victim_wait_ns, theft_.small_ns, theft_.overlap_gain_ns);
  if (limit_ns == 0 || size == theft_size::large) {
    w.backoff_ns = 0;  // off, or the theft was no small one
    return;
  }
  if (size == theft_size::overlapped) return;  // no wait, and a run of small thefts goes on
  const auto first_ns = std::uint64_t(std::chrono::nanoseconds(first_steal_backoff).count());
  w.backoff_ns = w.backoff_ns == 0 ? std::min(first_ns, limit_ns) : std::min(2 * w.backoff_ns, limit_ns);
  bump(w.steal_backoffs);
  const std::uint64_t until = now + w.backoff_ns;
  begin_backoff();
  while (now_ns() < until && !stopping_.load(std::memory_order_acquire) &&
         root_queue_size_.load(std::memory_order_relaxed) == 0) {
    send_spare_beat(w);
    std::this_thread::yield();
  }
  end_backoff();
}

// Looking again: a lazy check that held its promotion back meanwhile (hold_promotion) cleared its
// `notify` bit; set every worker's again so that the check comes back at its next poll.
void runtime::end_backoff() {
  backing_off_.fetch_sub(1, std::memory_order_seq_cst);
  rearm_held_checks();
}

void runtime::search_round(worker& w) {
  w.search_rounds.store(w.search_rounds.load(std::memory_order_relaxed) + 1, std::memory_order_seq_cst);
  rearm_held_checks();
}

std::uint64_t runtime::search_rounds_of_others(const worker& w) const noexcept {
  std::uint64_t sum = 0;
  for (const auto& v : workers)
    if (v.get() != &w) sum += v->search_rounds.load(std::memory_order_seq_cst);
  return sum;
}

// Sets every worker's `notify` bit when a lazy check held its promotion meanwhile — the caller's
// own too: the check that held may be its own (a blocked join makes search rounds, and an owner
// whose check held may go idle and search), and `promotion_held_` is consumed here, so no later
// re-arm would come for it.  Until stop 36 the caller skipped itself: such an owner kept its
// `notify` bit clear with nothing left to set it (its deque empty, so neither a pop nor a theft
// would), and offered nothing more for the rest of its work while every other worker slept
// (seen as a 30 s stall of Edges.NonStdExceptionsFromStolenLoopPieces under lazy-df2 at 8 workers
// and ThreadSanitizer; test Adaptive.ASearchRoundOfTheHoldingWorkerItselfRearmsItsCheck).
void runtime::rearm_held_checks() {
  if (!promotion_held_.load(std::memory_order_seq_cst) || !promotion_held_.exchange(false, std::memory_order_seq_cst))
    return;
  for_each_poll_word([](worker& v) { v.hot->poll.fetch_or(poll_bit::notify, std::memory_order_seq_cst); });
}

void runtime::begin_search(worker& w) noexcept {
  if (w.searching) return;
  w.searching = true;
  searching_.fetch_add(1, std::memory_order_seq_cst);
}

// The last searcher to leave wakes a sleeper (if any) to look in its place: the publishers that
// skipped their wake because it was searching may have work it will not take now (Go's rule).
void runtime::end_idle(worker& w) noexcept {
  if (const std::uint64_t since = w.idle_since.load(std::memory_order_relaxed); since != 0) {
    // An interval that began before reset_stats counts from the reset (found by stop 41's bug
    // hunt: idle workers' whole sleeps before a reset were added after it).
    const std::uint64_t from = std::max(since, stats_reset_ns.load(std::memory_order_relaxed));
    const std::uint64_t now = now_ns();
    // The interval leaves `idle_since` before it enters `idle_ns`, and the count's store releases
    // the clearing: a stats() reader that sees the new count (acquire) then sees no interval in
    // progress, so it never counts the interval twice (counters_of; at worst, reading between the
    // two stores, it misses it once: a read during a run).
    w.idle_since.store(0, std::memory_order_relaxed);
    w.idle_ns.store(w.idle_ns.load(std::memory_order_relaxed) + (now > from ? now - from : 0), std::memory_order_release);
  }
  if (w.searching) {
    w.searching = false;
    if (searching_.fetch_sub(1, std::memory_order_seq_cst) == 1 && sleepers_.load(std::memory_order_seq_cst) != 0)
      wake_one();
  }
}

bool runtime::find_work(worker& w) {
  if (root_queue_size_.load(std::memory_order_relaxed) != 0 && take_root(w)) {
    w.stolen_task_ns = worker::none_stolen;  // a root job is no steal (its leapfrogs may have set it)
    return true;
  }
  // One ready structure for all under the fiber engine (sched_fibers.cpp take_ready): no victim to
  // choose, and no attempt, counted or made, while it holds nothing ready.
  if (uses_fibers) return sched->steal(w, w);
  const std::size_t n = workers.size();
  if (n < 2) return false;
  std::size_t v = w.random_below(n - 1);
  if (v >= w.index) ++v;
  bump(w.steal_attempts);
  return sched->steal(w, *workers[v]);
}

// fork_checked_mutex.hpp: a lock found taken in the child of a fork() is held by a thread the child
// does not have.
void fork_checked_mutex::lock_slow() {
  if (rt_.made_before_fork()) [[unlikely]] runtime::end_forked_child();  // its holder is gone
  m_.lock();
}

// A worker idle in the child of a fork() is the thread that forked, inside a task, whose task has
// returned; one parked at a join there waits for a thief, one at the fiber engine's lock for its
// holder (sched_fibers.cpp).  The child has no other thread of this pool, nor the caller of the run
// the task was part of (its run() refuses new jobs: check_fork_generation), so nothing can ever
// reach this thread, and the child would sleep for ever.  It ends, saying so (found by stop 46's
// lifecycle hunt: the child slept).  Checked before sleeping or parking only: the first millisecond
// of looking costs nothing more.
[[noreturn]] void runtime::end_forked_child() {
  fatal(
      "in the child of a fork() called inside a task, a worker thread has nothing left that it can do: the "
      "task that forked has returned, or waits for another thread of the pool (a thief, a lock), and the child "
      "has neither the pool's other threads nor the caller of its run (it would wait for ever). End the child "
      "inside the task that forked (std::exit, _exit or exec).");
}

// Sleeping without losing a wake-up: a sleeper announces itself (sleepers++), then looks for work
// once more; a publisher makes work visible, then reads `sleepers` (notify_work).  Both sides are
// store, seq_cst fence, load, so under the C++ model the two fences are ordered in S and at least
// one side sees the other's store (Dekker; docs/PROTOCOLS.md, sleep/wake).  The fence after the
// fetch_add is needed: the work checks are relaxed loads, which a seq_cst RMW alone does not order
// (correct on x86, not on AArch64 or under the C++ model).  The epoch is read before announcing, so
// a wake that lands between the check and the wait is not lost.
//
// From its releasing store of `lendable` until take_back_slot, the thread touches nothing of its
// slot (work_visible reads only atomics), so a caller of pool::run may borrow it meanwhile.
//
// A searcher stops searching before it announces itself: a publisher that skipped its wake because
// it saw this worker searching (or saw a wake pending, which is cleared here) read that before
// this fetch_sub (or this store) in S, hence before this sleeper's fence, so the sleeper's check
// sees its work (PROTOCOLS.md section 4).
//
// Under signal delivery the thread's beat timer stops before it sleeps and restarts once it holds
// its slot again (PROTOCOLS.md section 6b).
void runtime::sleep(worker& w) {
  // The native stack pages a deep run committed go back before the thread sleeps (README, "Deep
  // nesting's costs"): this thread is at its shallowest here (worker_main's frame and this one),
  // nothing of its own is live below, and no other thread reads its stack while it is outside
  // every join.  No system call unless the run went below the margin since the last trim (the
  // canary, native_stack::trim_below: a page of it, ~110 ns beside a sleep's futex calls, so that
  // frames up to 4 KiB are seen).  Before it announces itself: a publisher meanwhile sees
  // it searching (or not sleeping) and the check after the announcement finds its work.
  w.thread.stack().trim_below(__builtin_frame_address(0), 4096);
  w.trace_enter(activity::idle);
  if (beats_by_signal()) beat_timer_disarm();  // SPEC §2: a sleeping worker takes no beats
  const std::uint32_t epoch = wake_epoch_.load(std::memory_order_acquire);
  wake_pending_.store(false, std::memory_order_seq_cst);
  if (w.searching) {
    w.searching = false;
    searching_.fetch_sub(1, std::memory_order_seq_cst);
  }
  w.tenure.store(slot_tenure::lendable, std::memory_order_release);  // the slot's last write before it
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  // A check holding its offers for this searcher (hold_for_rounds), or for every other worker busy
  // (every_other_worker_busy, which this thread's searching_ decrement made true until the
  // increment above), promotes again, and its push wakes this sleeper.  After the increment: a
  // check that read sleepers_ before it announced its hold first (seq_cst), so this exchange sees it.
  rearm_held_checks();
  if (beats_from_spare()) wake_heartbeat();  // a core may be spare now: the timer may beat again
  WEFT_CHAOS_POINT();  // announced, work not yet checked: a publisher may read sleepers_ now
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (!work_visible() && !stopping_.load(std::memory_order_seq_cst))
    wake_epoch_.wait(epoch, std::memory_order_acquire);
  sleepers_.fetch_sub(1, std::memory_order_seq_cst);
  if (heartbeat_bits != 0) wake_heartbeat();
  take_back_slot(w);
  if (beats_by_signal()) beat_timer_arm(w.beats_requested, cfg.heartbeat);
  w.trace_leave();  // the slot is this thread's again (a borrower may have written its trace)
  begin_search(w);
  wake_pending_.store(false, std::memory_order_seq_cst);  // after counting as a searcher
}

// The thread may run as its worker again only once it holds the slot: an acquiring CAS from
// `lendable`, which reads the releasing store of whoever held it last (itself, or a borrower's
// return_slot), so the borrower's writes to the slot are visible.  If the slot is lent, the wake
// that woke this thread may have been meant for the borrower's promoted work: pass it on to
// another sleeper, and wait for the slot.  Then the poll word is set from the slot's state (a
// borrower may have changed it, e.g. Wool's public window).
void runtime::take_back_slot(worker& w) {
  bool passed_on = false;
  for (;;) {
    std::uint32_t expected = slot_tenure::lendable;
    if (w.tenure.compare_exchange_strong(expected, slot_tenure::held, std::memory_order_acquire,
                                         std::memory_order_relaxed))
      break;
    if (!passed_on) {
      passed_on = true;
      wake_pending_.store(false, std::memory_order_seq_cst);  // the wake ends here: pass it on
      if (sleepers_.load(std::memory_order_seq_cst) != 0) wake_one();
      // Not awake while it waits: its slot's borrower is (awake_threads, heartbeat.cpp).
      slot_waiters_.fetch_add(1, std::memory_order_seq_cst);
      if (heartbeat_bits != 0) wake_heartbeat();
    }
    w.tenure.wait(slot_tenure::lent, std::memory_order_acquire);
  }
  if (passed_on) {
    slot_waiters_.fetch_sub(1, std::memory_order_seq_cst);
    if (heartbeat_bits != 0) wake_heartbeat();
  }
  w.hot->poll.store(sched->idle_poll_bits(w), std::memory_order_relaxed);
}

bool runtime::work_visible() const {
  if (root_queue_size_.load(std::memory_order_seq_cst) != 0) return true;
  for (const auto& v : workers)
    if (sched->has_stealable(*v)) return true;
  return false;
}

void runtime::wake_one() noexcept {
  if (wake_pending_.exchange(true, std::memory_order_seq_cst)) return;  // a woken sleeper will look
  wake_epoch_.fetch_add(1, std::memory_order_release);
  wake_epoch_.notify_one();
}

}  // namespace weft::detail
