// weft — the runtime behind a weft::pool: its workers, its scheduler, and the cross-thread parts
// that every policy shares.  Its methods live in one file per concern:
//   lifecycle.cpp     starting and stopping the worker threads
//   idle.cpp          the idle loop: looking for work, sleeping, waking (the sleepers Dekker pair)
//   heartbeat.cpp     the heartbeat timer thread (HB §2); beat_signal.cpp: beats by signal instead
//   blocked_join.cpp  running a stolen task; a blocked join and its leapfrogging (WOOL §I.b)
//   root_jobs.cpp     pool::run from outside the pool; the serial policy's runs on the caller
//   stats.cpp         counters (SPEC §6)
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <latch>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "weft/detail/chaos.hpp"
#include "weft/detail/platform.hpp"
#include "config_resolve.hpp"
#include "fork_checked_mutex.hpp"
#include "scheduler.hpp"
#include "worker.hpp"
#include "weft/config.hpp"
#include "weft/detail/slow_path.hpp"

namespace weft::detail {

class runtime;
// weft::malloc's pool registry (memory.cpp): a pool's heap_id, registered for its life.
std::uint64_t register_heap_owner(runtime& rt);
void unregister_heap_owner(runtime& rt) noexcept;
// Held by the forking thread across fork() (global_pool.cpp), so that the child never inherits the
// registry locked by a thread that does not exist there.
void lock_heap_registry() noexcept;
void unlock_heap_registry() noexcept;

class runtime {
 public:
  explicit runtime(const config& resolved);
  ~runtime();

  const config cfg;
  const bool runs_on_caller;  // the serial policy: run() executes on the calling thread
  const bool uses_fibers;     // adf, dfd, fifo: every job and branch runs on a fiber (sched_fibers.cpp)
  // adf, dfd with a finite K: weft::malloc consults the quota (NAR §5.3) before it allocates.
  const bool quota_applies;
  std::unique_ptr<scheduler> sched;
  std::vector<std::unique_ptr<worker>> workers;
  const std::uint32_t heartbeat_bits;  // poll bits the heartbeat thread sets (0: no heartbeat)
  // The heartbeat policy with config::heartbeat_delivery = signal: each awake thread's own timer
  // (beat_signal.hpp) beats instead of the timer thread.
  bool beats_by_signal() const noexcept {
    return heartbeat_bits != 0 && cfg.heartbeat_delivery == heartbeat_delivery::signal;
  }
  // config::heartbeat_delivery = spare (the default): the timer thread beats only while a core runs
  // no awake worker; idle workers and blocked joins send the beats otherwise (heartbeat.cpp).
  bool beats_from_spare() const noexcept {
    return heartbeat_bits != 0 && cfg.heartbeat_delivery == heartbeat_delivery::spare;
  }
  // A worker with a core and no task of its own (looking for work, or waiting at a blocked join)
  // sends the beat that is due, under spare delivery.  One relaxed load when none is due.
  void send_spare_beat(worker& w) {
    if (!beats_from_spare()) return;
    const std::uint64_t now = now_ns();
    if (now >= next_beat_ns_.load(std::memory_order_relaxed)) send_beat_if_due(now, w.trace.get());
  }
  // The process's fork generation when this pool started its threads (global_pool.cpp): in a child
  // of a later fork() the threads do not exist, and run() says so.
  const std::uint64_t fork_generation;

  // Runs a stolen frame's task on `w` and marks it DONE.  `fn` is the task's wrapper.
  // `victim` is the worker whose join waits for the frame (it may be parked: see wait_stolen).
  void execute_stolen(worker& w, worker& victim, frame* t, task_fn fn);
  // Waits until the stolen frame `fr` is DONE, leapfrogging on its thief (and, transitively, on
  // the worker that thief waits for: their work descends from `fr` too).
  void wait_stolen(worker& w, frame* fr, unsigned thief);
  void park_until_done(worker& w, frame* fr, unsigned thief);
  // Wakes the blocked joins parked on `from` (their thief, or a thief further down their chain of
  // blocked_on): `from` made work stealable that they may leapfrog (blocked_join.cpp).
  void wake_parked_joiners(const worker& from) noexcept;
  bool chain_has_stealable(const worker& w, unsigned thief) const noexcept;
  // Visits the workers down a blocked_on chain: `first`, the worker it waits for (its
  // `blocked_on`), and so on, until `visit(worker&)` returns true (then true), the chain ends (-1)
  // or it made one hop per worker (then false): read hop by hop, relaxed, a chain may be stale and
  // even loop, so the walk is bounded.  The blocked join's leapfrogs (wait_stolen), the parked
  // join's check before it sleeps (chain_has_stealable) and the wake for new work
  // (wake_parked_joiners) each walk one.
  template <class Visit>
  bool walk_blocked_chain(int first, Visit visit) const {
    int v = first;
    for (std::size_t hops = 0; v >= 0 && hops < workers.size(); ++hops) {
      worker& at = *workers[std::size_t(v)];
      if (visit(at)) return true;
      v = at.blocked_on.load(std::memory_order_relaxed);
    }
    return false;
  }
  // After making work stealable: wake a sleeping worker, unless a worker is awake and looking for
  // work (it sees this work before it may sleep) or a woken one has not run yet (it will look).
  // The caller's publishing store and these loads need store-load order (see sleep(); PROTOCOLS.md
  // section 4): a fence, as on the sleeper's side.  `from`, the worker whose deque (or Wool window)
  // got the work, if the caller knows it: a blocked join parked on it is woken whoever else is
  // looking, for it is the one thread that may leapfrog that work (PROTOCOLS.md section 8).
  void notify_work(const worker* from = nullptr) noexcept {
    WEFT_CHAOS_POINT();  // work published, sleepers_ not yet read: a sleeper may be checking now
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (from != nullptr && parked_joins_.load(std::memory_order_relaxed) != 0) wake_parked_joiners(*from);
    if (searching_.load(std::memory_order_relaxed) != 0) return;
    if (sleepers_.load(std::memory_order_relaxed) != 0) wake_one();
  }
  // Wakes one sleeper, unless a woken one has not run yet (wake_pending_); also the component tests'
  // way to make a wake pending.
  void wake_one() noexcept;
  // A worker leaves the idle loop to run what it found (a root job, a stolen task): closes its idle
  // interval and stops counting as searching (steal calls it before its own notify_work).
  void end_idle(worker& w) noexcept;
  // A worker starts looking for work (counted in searching_; the idle loop; component tests).
  void begin_search(worker& w) noexcept;

  // The lazy trigger and the steal backoff (sched_deque.cpp, idle.cpp; PROTOCOLS.md §5).  While
  // every other worker waits out a backoff (or sleeps, with at least one waiting), no thief will look
  // at a promoted item before a wait ends (up to config::steal_backoff): an oldest-first (BF-LS)
  // check then promotes nothing and says so in `promotion_held_`, and the first thief whose wait
  // ends sets every worker's `notify` bit again, so the next check promotes for it.  Without this
  // a check on a two-worker pool promoted for a thief that was not looking, and took the item back
  // itself at its join, at nearly every check: lazy-bf's small work ran 1.1-2.1x slower on 2
  // workers than on 1 (docs/results/small-work.md, "Holding promotions").  With every other worker
  // asleep and none waiting, checks promote as LS has them: the push wakes a sleeper (notify_work).
  bool no_thief_looking() const noexcept {
    const std::uint32_t waiting = backing_off_.load(std::memory_order_seq_cst);
    return waiting != 0 && waiting + sleepers_.load(std::memory_order_seq_cst) + 1 >= workers.size();
  }
  // A thief's steal backoff begins and ends (idle.cpp back_off_after_steal; component tests drive
  // them by hand).  The end re-arms the lazy checks if one held its promotion meanwhile.
  void begin_backoff() noexcept { backing_off_.fetch_add(1, std::memory_order_seq_cst); }
  void end_backoff();
  // Offers nobody takes.  A lazy check promotes because some thief is searching (not waiting out a
  // backoff); but a thread counted as searching may not be running at all (descheduled: on a shared
  // 2-vCPU VM, for milliseconds), and a running one may never catch items that its victim takes
  // back within ~100 ns.  Either way the items go back to their owner, which paid a promotion and
  // a pop for each — 5 to 15 a repetition of a 150-ns loop, the bad mode of small-work.md's
  // loop(64).  So once a worker has offered futile_offers items in a row that nobody took, its
  // checks promote again only after some other thread proved it is looking: a search round, its
  // first failed steal attempt after work and every 64th after that, in the idle loop or a blocked
  // join (search_round).  Until then they hold, as for a thief in its backoff, and that round
  // re-arms them — or the searcher's going to sleep does (sleep()): with nobody searching a
  // check promotes as LS has it, and its push wakes a sleeper (notify_work).
  static constexpr std::uint64_t futile_offers = 8;
  std::uint64_t search_rounds_of_others(const worker& w) const noexcept;
  // A searching worker finished a round of failed attempts: counted (seq_cst, the mirror of
  // hold_for_rounds), and the checks that held their promotions re-armed.
  void search_round(worker& w);
  // A check that offered futile_offers untaken items holds while some worker counts as searching,
  // or a sleeper woken for an earlier offer has not run yet (wake_pending_: it will search), and none
  // has finished a search round since `seen`: true when that still holds after announcing the hold
  // (store, then loads; search_round and sleep() store, then load: one side sees the other; a woken
  // sleeper counts as searching before it clears wake_pending_, so a check that read the wake
  // pending is re-armed by that thread's first round).  When it promotes instead, `seen` becomes the
  // rounds counted now.  The woken sleeper: with nobody searching, a check promotes and its push
  // wakes the thief; until stop 50 every check while the wake was under way (a futex wake and a
  // vCPU's wake-up: tens of µs on these VMs) promoted again, and the owner took each item back —
  // 10,000-12,000 offers in an invocation of weft-small-work's loop(64), its T2/T1 1.1-1.5 on the
  // Intel VM (docs/results/small-work.md, "Stop 50").
  bool hold_for_rounds(const worker& w, std::uint64_t& seen) noexcept {
    // Some thread searches, or a woken sleeper will (seq_cst loads: the argument above).
    const auto looking = [this] {
      return searching_.load(std::memory_order_seq_cst) != 0 || wake_pending_.load(std::memory_order_seq_cst);
    };
    if (!looking()) {
      seen = search_rounds_of_others(w);
      return false;
    }
    promotion_held_.store(true, std::memory_order_seq_cst);
    const bool still_looking = looking();
    const std::uint64_t rounds = search_rounds_of_others(w);
    if (still_looking && rounds == seen) return true;
    seen = rounds;
    return false;
  }
  // A lazy check found no thief looking: true when it still finds none after announcing
  // the held promotion (store, then load; the thief decrements, then exchanges: one of the two sees
  // the other, so a held promotion is never left without a re-arm).
  bool hold_promotion(bool loop_poll) noexcept {
    promotion_held_.store(true, std::memory_order_seq_cst);
    return no_thief_looking() || (loop_poll && every_other_worker_busy());
  }
  // Every other worker runs a task: none searches, sleeps, waits at a blocked join or is about to
  // be woken (seq_cst loads: each of those states is entered with a seq_cst RMW before the thread's
  // next search round, which re-arms a held check — hold_promotion's argument).  A loop piece's
  // check holds its split then (sched_deque.cpp, promote_below_threshold).
  bool every_other_worker_busy() const noexcept {
    return searching_.load(std::memory_order_seq_cst) == 0 && sleepers_.load(std::memory_order_seq_cst) == 0 &&
           waiting_joins.load(std::memory_order_seq_cst) == 0 && !wake_pending_.load(std::memory_order_seq_cst);
  }
  // Blocked joins that may leapfrog (wait_stolen): each is a thief of its own thief's work.
  std::atomic<std::uint32_t> waiting_joins{0};

  void submit(root_job& job);
  // pool::run calls on this pool from outside it in progress (submit_and_wait; a run inside one of
  // its jobs runs inline and is not counted): pool::~pool refuses to stop the threads under them.
  std::atomic<std::uint32_t> runs_in_flight{0};
  // pool::run from a thread outside every pool: when a worker sleeps, the caller borrows its slot
  // and runs `job` itself, waking nobody (TBB's arena slots work alike).  False when no slot is
  // lendable (every worker is awake, or the pool runs on the caller): then submit and wait.
  bool run_on_idle_slot(root_job& job);
  // pool::run on a pool whose destruction has begun (from a thread_local destructor of one of its
  // workers): ends the process, saying so, where the run would wait for ever (root_jobs.cpp).
  void check_not_stopping() const;
  // `w`, a worker of this pool, waits for a job it submitted to another pool, serving this one.
  void wait_serving(worker& w, root_job& job);

  // The pool's live threads (counters::live_threads_peak in stats::total).
  live_threads live;

  // When reset_stats last ran (now_ns; 0: never): an idle interval in progress then counts from
  // it, not from its start (end_idle).  Relaxed: the counters are read and reset between runs.
  std::atomic<std::uint64_t> stats_reset_ns{0};

  // Accounted memory (weft::malloc).
  std::atomic<std::int64_t> heap_now{0};
  std::atomic<std::uint64_t> heap_peak{0};
  // This pool's name in the blocks weft::malloc charges to it (memory.cpp, block_header): unique in
  // the process, never reused; registered while the pool lives, so that a block freed elsewhere
  // (another pool's worker, a thread that is no worker) is credited to the pool it was charged to.
  const std::uint64_t heap_id;

  weft::stats collect_stats() const;
  std::uint64_t beats_requested_now() const noexcept;  // detail::beats_requested_now
  void reset_stats();

  // trace.cpp / trace_pool.cpp: writes the workers' (and the heartbeat timer's) buffers as the trace
  // file cfg.trace_path.  Safe while workers run (a snapshot: see trace.hpp).
  void write_trace() const;
  void write_trace_at_end() const noexcept;  // write_trace when tracing, a failure reported on stderr
  bool tracing() const noexcept { return !cfg.trace_path.empty(); }
  // work_span.cpp: the work/span figures of every worker and serial context.
  work_span_report collect_work_span() const;

  // A queued root job or a ready thread anywhere (the sleep protocol's check; a fiber borrower's
  // reason to give its slot back, serve_borrowed).
  bool work_visible() const;
  // Is this the child of a fork() made after this pool?  (pool::~pool keeps such a pool.)
  bool made_before_fork() const noexcept;
  // A thread of this pool in the child of a fork() that can never be given anything to do (idle.cpp).
  [[noreturn]] static void end_forked_child();

 private:
  void rearm_held_checks();
  // lifecycle.cpp
  void start_workers();
  void stop_threads() noexcept;  // wakes every thread of the pool and joins it
  void worker_thread(worker& w, std::latch& started);

  // idle.cpp
  void worker_main(worker& w);
  bool find_work(worker& w);
  void back_off_after_steal(worker& w, std::uint64_t ran_ns, std::uint64_t now);
  std::atomic<std::uint32_t> backing_off_{0};  // workers waiting out a steal backoff now
  std::atomic<bool> promotion_held_{false};    // a lazy check promoted nothing for that reason
  const theft_thresholds theft_;  // small and overlapped thefts (config_resolve.hpp, size_of_theft)
  void sleep(worker& w);
  void take_back_slot(worker& w);
  std::atomic<std::uint32_t> wake_epoch_{0};
  std::atomic<std::uint32_t> sleepers_{0};
  // Workers in the idle loop, awake and looking for work (worker::searching), and "a sleeper was
  // woken and has not run yet": while either is set a publisher wakes nobody (Go's spinning-M rule;
  // PROTOCOLS.md section 4).  Without them every promotion on a pool whose thief is asleep, or
  // woken but not yet scheduled, made a futex call.
  std::atomic<std::uint32_t> searching_{0};
  std::atomic<bool> wake_pending_{false};
  // Blocked joins parked now (park_until_done): while none is, a publisher reads this one word only.
  std::atomic<std::uint32_t> parked_joins_{0};
  std::atomic<bool> stopping_{false};

  // trace_pool.cpp
  void start_trace();
  trace_clock trace_start_{};
  std::unique_ptr<trace_buffer> timer_trace_;  // the heartbeat thread's lane
  mutable std::atomic<std::uint64_t> trace_dropped_said_{0};  // the dropped events write_trace last reported

  // heartbeat.cpp
  void heartbeat_main();
  bool send_beat_if_due(std::uint64_t now, trace_buffer* lane);
  std::size_t awake_threads() const noexcept;
  enum class beat_rate { none, fallback, every_period };
  beat_rate timer_rate() const noexcept;
  static constexpr std::uint64_t spare_fallback_ns = 1'000'000;
  const std::uint64_t beat_period_ns_;
  const std::size_t cores_;  // CPUs this process may run on (sched_getaffinity), at the pool's start
  // The pool's next beat (now_ns time); any sender moves it.  "Never" until every worker has
  // published its poll word (lifecycle.cpp stores the first deadline with release after the
  // workers' latch; a sender reads it with acquire before it writes the poll words).
  std::atomic<std::uint64_t> next_beat_ns_{~std::uint64_t(0)};
  std::mutex beat_mutex_;
  std::condition_variable beat_cv_;
  std::thread heartbeat_thread_;
  // Bumped when awake_threads() changes in a way the timer must see: a worker wakes (and, under
  // spare delivery, goes to sleep), a slot is lent (or, under spare delivery, given back), a woken
  // worker starts or stops waiting for its lent slot.
  std::atomic<std::uint32_t> awake_epoch_{0};
  void wake_heartbeat() noexcept;  // bumps awake_epoch_ and wakes the timer if it parked

  // root_jobs.cpp
  root_job* pop_root();
  bool take_root(worker& w);
  void run_root(worker& w, root_job& job);
  bool run_root_inline();
  void run_on_caller(root_job& job);
  void check_fork_generation() const;
  worker* borrow_slot() noexcept;
  void return_slot(worker& w) noexcept;
  worker& serial_context_acquire();
  void serial_context_release(worker& w);
  std::mutex root_queue_mutex_;
  std::deque<root_job*> root_queue_;               // guarded by root_queue_mutex_
  std::atomic<std::size_t> root_queue_size_{0};    // its size, read without the lock by idle workers
  // Guards worker::hot while a slot is lent or given back; the heartbeat's senders and a thief
  // re-arming the lazy checks hold it while they write other workers' poll words (for_each_poll_word), so
  // nobody writes into a borrower's TLS block after the borrower left; stats() holds it to read a
  // lent slot's counters there (mutable: collect_stats is const).
  // Fork-checked (fork_checked_mutex.hpp): the heartbeat's timer thread takes it at every beat, and
  // a fork() child of a task whose timer thread held it then waited for ever in its first spare
  // beat (Lifecycle.AForkChildWhoseTaskReturnsOnAWorkerSaysSo under heartbeat: 1 run in 30-40, 5 in
  // 12 under ThreadSanitizer, killed by the test's alarm instead of ending with its message).
  mutable fork_checked_mutex lend_mu_{*this};
  // Calls f(w) for every worker under lend_mu_, unless the pool is stopping (then false): a lent
  // slot's `hot` is its borrower's TLS block, valid only while lent; a worker's own is its thread's,
  // gone once the thread ends, and at shutdown a worker that has left its loop passes through
  // lend_mu_ before it ends (worker_main), so a writer holding it either comes first (the worker
  // waits) or sees `stopping_` here.
  template <class F>
  bool for_each_poll_word(F&& f) {
    std::lock_guard lk(lend_mu_);
    if (stopping_.load(std::memory_order_acquire)) return false;
    for (auto& w : workers) {
      WEFT_CHAOS_DESCHEDULED();  // a worker may leave its loop meanwhile (test ShutdownRace)
      f(*w);
    }
    return true;
  }
  std::atomic<std::uint32_t> lent_slots_{0};  // slots lent now (the heartbeat keeps beating for them)
  // Worker threads woken while their slot is lent, waiting in take_back_slot (not awake: the
  // borrower is; heartbeat.cpp's awake_threads).
  std::atomic<std::uint32_t> slot_waiters_{0};
  // Guards serial_free_ and serial_all_, and a context's `hot` (its caller's block during a run,
  // which stats() and reset_stats() read and reset under it: run_on_caller).  One lock for every pool's serial contexts, not one per
  // pool: a serial pool made before fork() keeps working in the child (README), so the lock is held
  // across fork() with weft's other locks (global_pool.cpp, lock_serial_contexts), and one lock is
  // what a pthread_atfork handler can reach.  Until the hunt7 bug hunt each pool had its own, and a
  // fork made while another thread was in a serial run (acquiring or releasing its context) left
  // it locked in the child, whose runs of that pool then waited for ever.  Held for a few vector
  // operations (a context made on first use), and never while taking another lock but the guard
  // table's (a new context's stacks).
  static std::mutex serial_mu_;
  friend void lock_serial_contexts() noexcept;
  friend void unlock_serial_contexts() noexcept;
  std::vector<worker*> serial_free_;
  std::vector<std::unique_ptr<worker>> serial_all_;
};

// A root job's body, run where the job runs (a worker's stack, a borrowed slot, a root fiber), and
// the notice to its caller that it is done (root_jobs.cpp).
void run_root_body(root_job& job);
void finish_root(root_job& job);
// Calls f() inside a catch handler of `handled` (a rethrow caught at once): code that runs a job or
// a branch on another thread than the one whose handler it was called in (a queued pool::run, a
// scope's task in the global pool, a fiber-engine fork) gives it the handled exception the serial
// elision's inline call sees — `throw;` rethrows that very object, std::current_exception() points
// at it — where a thread's, or a new fiber's, own exception state has none (`throw;` then called
// std::terminate; stop 48's exceptions hunt).  The catch ends when f returns or throws.
template <class F>
void run_handling(const std::exception_ptr& handled, F&& f) {
  try {
    std::rethrow_exception(handled);
  } catch (...) {
    f();
  }
}
// weft::malloc on a worker of a pool with a memory quota (adf, dfd): the dummy threads and the
// preemption that come before an allocation of `bytes` (sched_fibers.cpp, NAR §5.3).
void fiber_before_alloc(std::size_t bytes);

// How many fork() children deep this process is (0 in the original process); registers the
// pthread_atfork handlers on first call (global_pool.cpp).
std::uint64_t current_fork_generation();
// runtime::serial_mu_, held across fork() (global_pool.cpp's pthread_atfork handlers).
void lock_serial_contexts() noexcept;
void unlock_serial_contexts() noexcept;
// A pool::run job or a stolen task returned with frames left above where it began (root_jobs.cpp):
// ends the process, naming the misuse.
[[noreturn]] void escaped_frames(const char* what) noexcept;
// The scopes' 64 error locks (scope.cpp, error_guard), held across fork() too; each is held for a
// few stores and never while taking another lock.
void lock_scope_error_locks() noexcept;
void unlock_scope_error_locks() noexcept;
// A pool that cannot be destroyed is kept as it is (pool::~pool: the child of a fork, a pool destroyed
// from inside one of its own runs).
void keep_undestroyed(std::unique_ptr<runtime> rt) noexcept;

// Adds `by` to a counter that only its owning worker writes, while a stats() reader may read it:
// a load and a store, no locked instruction.
inline void bump(std::atomic<std::uint64_t>& c, std::uint64_t by = 1) noexcept {
  c.store(c.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

// Waits for `job`, serving nothing: a short spin on done_hint, then the job's condition variable
// (wait_for on a thread that is no worker; a fiber borrower that gave its slot back).
void wait_idle_for(root_job& job);

// A thread that waits for `job` and may serve its pool meanwhile: `look()` tries once (true: it ran
// something); after 64 empty looks in a row it sleeps on the job in waits growing from 50 us to
// 1 ms, looking again after each, so work that appears meanwhile waits at most that long for it.
// `before_sleep()` is called before each of those waits: false stops the serving there (the fiber
// engine's borrower gives its slot back, serve_borrowed).  Returns true once `done_hint` (acquire)
// or `done` (under the job's mutex) says the job is done, false when before_sleep stopped it
// (runtime::wait_serving; the fiber engine's borrower, serve_borrowed).
template <class Look, class BeforeSleep>
bool serve_until_done(root_job& job, Look look, BeforeSleep before_sleep) {
  using namespace std::chrono_literals;
  unsigned idle = 0;
  std::chrono::microseconds pause = 50us;
  while (!job.done_hint.load(std::memory_order_acquire)) {
    if (look()) {
      idle = 0;
      pause = 50us;
      continue;
    }
    if (++idle < 64) {
      cpu_relax();
      continue;
    }
    if (!before_sleep()) return false;
    std::unique_lock lk(job.m);
    if (job.cv.wait_for(lk, pause, [&] { return job.done; })) return true;
    pause = std::min<std::chrono::microseconds>(pause * 2, 1ms);
  }
  return true;
}
template <class Look>
void serve_until_done(root_job& job, Look look) {
  serve_until_done(job, look, [] { return true; });
}

// SPEC §2: an idle worker uses no CPU after about 1 ms without work.
inline constexpr std::uint64_t spin_before_sleep_ns = 1'000'000;

}  // namespace weft::detail
