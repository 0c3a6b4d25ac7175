// weft — root jobs: pool::run from a thread outside the pool (run by the caller itself on the slot
// of a sleeping worker, or queued for a worker while the caller sleeps until done), and under the
// serial policy, runs on the calling thread itself.
#include "beat_signal.hpp"
#include "weft/detail/chaos.hpp"
#include "acting_as.hpp"
#include "measure.hpp"
#include "pool_runtime.hpp"

#include <cerrno>
#include <stdexcept>

namespace weft::detail {

void run_root_body(root_job& job) {
  measured_root measured(tls_hot);  // the work/span mode, when on (work_span.cpp)
  try {
    if (job.handled) [[unlikely]]
      run_handling(job.handled, [&] { job.body(&job); });
    else
      job.body(&job);
  } catch (...) {
    job.error = std::current_exception();
  }
}

void escaped_frames(const char* what) noexcept {
  fatal(
      "a %s returned with tasks it spawned still open on its task stack: a weft::scope with unsynced tasks, or an "
      "unsynced weft::spawn handle, made inside it and kept past its end (allocated with new and returned, say). "
      "Sync a scope's tasks and every handle inside the job or task that spawned them.",
      what);
}

namespace {

// A root job run on this thread (its own stack or a borrowed one, not a fiber of the fiber engine,
// which starts each root on a fresh fiber).  A job this thread runs while its own code is inside an
// exception's cleanup (a worker of this pool serving it from a pool::run of another pool called in a
// destructor; a caller that runs its job on a borrowed slot, or itself under the serial policy)
// behaves as one run anywhere else: its scopes and handles count the exceptions thrown since they
// were made, not those in flight.
void run_root_here(root_job& job) {
  frame* const top = tls_hot.top;
  run_root_body(job);
  // Frames left above where the job began are tasks it spawned and kept past its end: a scope's
  // latent tasks or an open weft::spawn handle, made with new (say) and returned.  Their frames sit
  // on this slot's task stack, maybe promoted; the next job pushes over them while a thief may run
  // one (a hang in ~2 % of runs under the lazy policies, stop 47's spawn hunt, where the scope's
  // sync on the caller threw "different nesting level").  One compare per job.
  if (tls_hot.top != top) [[unlikely]] escaped_frames("pool::run job");
}

// The same on `stack`, one of weft's native stacks (a lent slot's, a serial context's).
void run_root_on(native_stack& stack, root_job& job) {
  run_on_stack(stack, [](void* j) { run_root_here(*static_cast<root_job*>(j)); }, &job);
}
}  // namespace

// Notify under the lock: the waiter may destroy the job as soon as it sees `done`.
void finish_root(root_job& job) {
  std::lock_guard lk(job.m);
  job.done = true;
  WEFT_CHAOS_POINT();  // done under the lock, hint not yet set: the caller's spin must not decide alone
  job.done_hint.store(true, std::memory_order_release);
  job.cv.notify_one();
}

bool runtime::made_before_fork() const noexcept { return fork_generation != current_fork_generation(); }

void runtime::check_fork_generation() const {
  if (made_before_fork())
    throw std::logic_error(
        "weft::pool::run: this pool was made before fork(); its worker threads do not exist in the child "
        "process. Make a new pool in the child (the global pool is remade there automatically)");
}

// A run on a pool whose destruction has begun (stop_threads stored `stopping_`) would be queued for
// workers that leave their loops without looking at the queue again, and wait for ever — while the
// destroying thread waits to join the very thread that asked, when the run comes from a
// thread_local destructor of one of the pool's workers (they run after its loop) or from a job such
// a destructor started in another pool (found by stop 55's multipool hunt: a hang under every
// policy with threads).  Checked before a slot is borrowed: with several workers, one still asleep
// could lend its slot to such a run, which would then run or hang by chance.  Relaxed is enough
// for those: the worker's thread left its loop on an acquiring load that read the store, so by
// read-read coherence its later load reads it too, and another pool's worker running a job that
// thread queued reads it after the queue's lock handed the job over (happens-after the store).  A
// run from an unrelated thread racing with the destruction is a use of an object being destroyed
// and may miss it (README, "Pools and processes").  A serial pool has no threads to run such
// destructors.
void runtime::check_not_stopping() const {
  if (stopping_.load(std::memory_order_relaxed)) [[unlikely]]
    fatal(
        "pool::run was called on a weft::pool that is being destroyed (from a thread_local destructor of one of "
        "its worker threads, which run after the workers stop, or from a job started there): its workers have "
        "stopped, and the run would wait for ever. Make the run before the pool's destruction begins.");
}

void runtime::submit(root_job& job) {
  if (runs_on_caller) {
    run_on_caller(job);
    return;
  }
  check_fork_generation();
  // Queued, the job may run on another thread: the caller's handled exception goes with it
  // (root_job::handled).  A serial pool's job, above, runs here, inside the caller's own handlers.
  job.handled = std::current_exception();
  {
    std::lock_guard lk(root_queue_mutex_);
    root_queue_.push_back(&job);
    root_queue_size_.fetch_add(1, std::memory_order_relaxed);
  }
  WEFT_CHAOS_POINT();  // queued, nobody woken yet
  notify_work();
}

// The oldest queued root job, taken off the queue; null when none is queued.
root_job* runtime::pop_root() {
  std::lock_guard lk(root_queue_mutex_);
  if (root_queue_.empty()) return nullptr;
  root_job* job = root_queue_.front();
  root_queue_.pop_front();
  root_queue_size_.fetch_sub(1, std::memory_order_relaxed);
  return job;
}

bool runtime::take_root(worker& w) {
  root_job* job = pop_root();
  if (job == nullptr) return false;
  WEFT_CHAOS_POINT();  // taken, not yet run: the caller waits in wait_for
  run_root(w, *job);
  return true;
}

// A root job of this pool run on the calling thread as it stands, inline (a serial context that a
// worker of this pool entered, waiting for another pool: wait_serving).  False when none is queued.
bool runtime::run_root_inline() {
  if (root_queue_size_.load(std::memory_order_relaxed) == 0) return false;
  root_job* job = pop_root();
  if (job == nullptr) return false;
  run_root_here(*job);
  finish_root(*job);
  return true;
}

void runtime::run_root(worker& w, root_job& job) {
  if (sched->start_root(w, job)) return;  // the fiber engine: the job is a root thread
  end_idle(w);
  w.trace_enter(activity::work);
  frame* saved = w.base;
  w.base = w.hot->top;
  run_root_here(job);
  w.trace_leave();
  WEFT_ASSERT(w.hot->top == w.base, "a root job returned with frames left on its task stack");
  w.base = saved;
  WEFT_CHAOS_POINT();  // finished, not yet marked done: the caller spins on done_hint, then sleeps
  finish_root(job);
}

// A run on a native stack of weft's own: the borrower of a sleeping worker's slot runs its job on
// the slot's second native stack, and the serial policy's caller on its serial context's, each of
// config::stack_bytes with a registered guard, so that a run gets the stack (and the overflow
// message) the pool promises whichever thread runs it.  Sanitizer runtimes track one stack per
// thread and do not follow a stack switch, and the caller's own stack is not the pool's (under TSan
// a run with a 1 MiB result overflowed the main thread's): sanitized builds do not switch stacks —
// they do not lend slots at all (every run is queued), and a serial run stays on the caller's stack.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WEFT_SWITCH_STACKS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WEFT_SWITCH_STACKS 0
#endif
#endif
#ifndef WEFT_SWITCH_STACKS
#define WEFT_SWITCH_STACKS 1
#endif

// The serial policy: the caller runs the job itself, on a task stack and a native stack of its own
// (a serial context's: config::max_depth frames, config::stack_bytes), and its thread's hot state
// is restored afterwards.  On the caller's own stack a chain of 10^6 joins overflowed an 8 MiB
// `ulimit -s` with a bare SIGSEGV; on the context's, it fits, and an overflow names the setting.
// No memory for the stack: std::system_error naming config::stack_bytes, as a pool of workers
// throws from its constructor (until stop 45's bug hunt the job ran on the caller's stack instead,
// the setting silently not applied: a deep run then crashed bare).
void runtime::run_on_caller(root_job& job) {
  worker& ctx = serial_context_acquire();
  if (WEFT_SWITCH_STACKS && !ctx.run_stack.map_once(cfg.stack_bytes)) {
    const int err = errno;
    serial_context_release(ctx);
    throw_no_native_stack(err, cfg.stack_bytes);
  }
  ctx.serial_caller = tls_hot.self;
  {
    acting_as as(ctx, 0, traits_of(cfg.policy).loops, nullptr);
    // The run counts in the caller's block (acting_as); stats() and reset_stats() read and reset
    // it through the context's `hot`, under serial_mu_, as they do a lent slot's (run_on_idle_slot).
    // Before stop 51's stats hunt the context had no `hot`: a read during the run showed none of its
    // counts, and a reset during it left them to be retired when it ended.
    {
      std::lock_guard lk(serial_mu_);
      ctx.hot = &as.hot();
    }
    if (WEFT_SWITCH_STACKS) {
      run_root_on(ctx.run_stack, job);
      // Nothing runs on the context's stack now: what a deep run committed below the margin goes
      // back (a 512-byte compare when nothing went that deep; native_stack::trim_unused).
      ctx.run_stack.trim_unused();
    } else
      run_root_here(job);
    std::lock_guard lk(serial_mu_);
    ctx.retire_counts(as.hot());
    ctx.hot = nullptr;  // the caller's block is the caller's again
  }
  ctx.serial_caller = nullptr;
  serial_context_release(ctx);
  finish_root(job);
}

// A slot whose thread sleeps (tenure `lendable`), taken with an acquiring CAS: everything that
// thread wrote to the slot before its releasing store of `lendable` is visible here.  The scan
// starts at a different slot per call so that concurrent callers rarely race for one.
worker* runtime::borrow_slot() noexcept {
  static std::atomic<std::size_t> next{0};
  const std::size_t n = workers.size();
  const std::size_t start = next.fetch_add(1, std::memory_order_relaxed);
  for (std::size_t i = 0; i < n; ++i) {
    worker& w = *workers[(start + i) % n];
    std::uint32_t expected = slot_tenure::lendable;
    if (w.tenure.load(std::memory_order_relaxed) == expected &&
        w.tenure.compare_exchange_strong(expected, slot_tenure::lent, std::memory_order_acquire,
                                         std::memory_order_relaxed))
      return &w;
  }
  return nullptr;
}

// The releasing store hands every write made while the slot was lent to the worker's thread, whose
// take_back_slot reads it with an acquiring CAS; the notify ends its wait if it woke meanwhile.
void runtime::return_slot(worker& w) noexcept {
  WEFT_CHAOS_POINT();  // the run is over, the slot not yet given back: its thread may be waiting for it
  w.tenure.store(slot_tenure::lendable, std::memory_order_release);
  w.tenure.notify_one();
}

bool runtime::run_on_idle_slot(root_job& job) {
  // serial: submit runs it on a serial context.  The fiber engine runs the job on a fiber of its own
  // and the scheduler loop on this thread's stack, so it switches no native stack and lends slots in
  // sanitized builds too.
  if (runs_on_caller || (!uses_fibers && !WEFT_SWITCH_STACKS)) return false;
  check_fork_generation();
  if (beats_by_signal() && !beat_timer_prepare()) return false;  // no timer for this thread: queue the run
  // The fiber engine's threads run on this thread too: their stacks' overflow is reported on its
  // alternate signal stack, as on a worker's (before the slot is ours: it may allocate).
  if (uses_fibers) ensure_alternate_signal_stack();
  worker* slot = borrow_slot();
  if (slot == nullptr) return false;
  worker& w = *slot;
  if (!uses_fibers && !w.run_stack.map_once(cfg.stack_bytes)) {
    return_slot(w);  // no memory for the stack: a worker runs the job (queued) instead
    return false;
  }
  // Under the fiber engine the job's root thread may move to another worker at any join: the
  // caller's handled exception goes with it, as with a queued job (submit).
  if (uses_fibers) job.handled = std::current_exception();
  end_idle(w);  // the slot is busy from now on (its idle time is the slot's, whoever holds it)
  // The slot goes back idle from now.  end_idle first: a fiber borrower's wait between its job's
  // threads (serve_borrowed) is the slot's idle time; on a thread-engine slot it finds nothing open.
  const auto give_slot_back = [&] {
    end_idle(w);
    w.idle_since.store(now_ns(), std::memory_order_relaxed);
    return_slot(w);
  };
  {
    acting_as as(w, sched->idle_poll_bits(w), traits_of(cfg.policy).loops, sched->eager_deque(w));
    hot_state* const own = w.hot;
    {
      std::lock_guard lk(lend_mu_);
      // The slot's counts in its own thread's block move to the slot's retired ones, which stats()
      // reads beside the lent `hot`: read through `hot` alone, they vanished from every read while
      // the slot was lent, and a reset_stats() meanwhile left them to come back afterwards (stop
      // 51's stats hunt).  The sleeping thread touches nothing of its block's counts until it takes
      // the slot back (acquiring what return_slot releases); readers and resets hold lend_mu_.
      w.retire_counts(*own);
      w.hot = &as.hot();  // thieves and the heartbeat timer now reach this thread's poll word
    }
    if (beats_by_signal()) {
      // The borrower's own timer beats its run (the slot's thread sleeps, its timer stopped).  A
      // borrower that blocks the beat signal gets no beats (PROTOCOLS.md section 6b).
      beat_timer_arm(w.beats_requested, cfg.heartbeat);
    } else if (heartbeat_bits != 0) {
      // The timer parks while every worker sleeps; this slot's thread still counts as asleep.
      lent_slots_.fetch_add(1, std::memory_order_seq_cst);
      wake_heartbeat();
    }
    WEFT_CHAOS_POINT();  // the slot is ours, the job not yet started
    // On the slot's lane, above the sleeping worker's idle (PROTOCOLS 11b).
    bool done = true;
    if (uses_fibers) {
      // The scheduler loop on this stack (it marks the lane's work), the job on fibers.
      done = sched->serve_borrowed(w, job);
    } else {
      w.trace_enter(activity::work);
      run_root_on(w.run_stack, job);
      w.run_stack.trim_unused();  // as a serial context's (run_on_caller), while the slot is ours
      w.trace_leave();
    }
    if (beats_by_signal())
      beat_timer_disarm(true);  // before the slot goes back: no beat of ours counts in it after
    else if (heartbeat_bits != 0) {
      lent_slots_.fetch_sub(1, std::memory_order_seq_cst);
      if (beats_from_spare()) wake_heartbeat();  // one awake thread fewer: a core may be spare
    }
    {
      std::lock_guard lk(lend_mu_);
      // The run's counts retire under the lock too, before `hot` goes back: retired by ~acting_as
      // after it, a read in between missed them.
      w.retire_counts(as.hot());
      w.hot = own;
    }
    if (!done) {
      // The fiber borrower stopped with its job still running and other work waiting for the slot
      // (serve_borrowed): the slot goes back now, woken to look for that work, and this thread
      // keeps acting as `w` — its hot state untouched — until the job is done, because a fiber of
      // the job that ran here may still read or bump it (PROTOCOLS.md §9a).  It runs nothing
      // meanwhile.
      as.leave_slot();
      give_slot_back();
      notify_work();
      wait_idle_for(job);  // not wait_for: this thread still reads as `w`'s, which it no longer is
      return true;  // ~acting_as after the job's last fiber ended: restores this thread's state
    }
  }
  give_slot_back();
  if (uses_fibers) {
    wait_for(job);  // done (serve_borrowed returns then): the lock orders finish_root's last writes
    return true;
  }
  job.done = true;  // this thread is the only one that reads it
  job.done_hint.store(true, std::memory_order_relaxed);
  return true;
}

std::mutex runtime::serial_mu_;
void lock_serial_contexts() noexcept { runtime::serial_mu_.lock(); }
void unlock_serial_contexts() noexcept { runtime::serial_mu_.unlock(); }

worker& runtime::serial_context_acquire() {
  std::lock_guard lk(serial_mu_);
  if (serial_free_.empty()) {
    serial_all_.push_back(std::make_unique<worker>(this, 0, cfg.max_depth));
    sched->attach(*serial_all_.back());
    serial_free_.push_back(serial_all_.back().get());
  }
  worker* w = serial_free_.back();
  serial_free_.pop_back();
  return *w;
}

void runtime::serial_context_release(worker& w) {
  std::lock_guard lk(serial_mu_);
  serial_free_.push_back(&w);
}

// Sleeps until the job is done.  `done_hint` lets the caller spin briefly first; the final wait
// takes the job's lock, so mark_done has released it before the caller may destroy the job.
void wait_for(root_job& job) {
  if (worker* w = tls_hot.self) {
    w->rt->wait_serving(*w, job);
    return;
  }
  wait_idle_for(job);
}

void wait_idle_for(root_job& job) {
  for (int i = 0; i < 4000 && !job.done_hint.load(std::memory_order_acquire); ++i) cpu_relax();
  std::unique_lock lk(job.m);
  job.cv.wait(lk, [&] { return job.done; });
}

// A worker of this pool waits for a job it gave to another pool (pool::run across pools).  It keeps
// serving its own pool meanwhile: in a cycle a.run -> b.run -> a.run the inner a.run may need
// exactly this worker (the way rayon's cross-pool wait works).  What it runs here goes on top of its
// suspended task, as in a leapfrog (execute_stolen and run_root keep that task's frames below
// `base`).  With nothing to do it waits on the job with a timeout that grows to 1 ms, so work of its
// own pool waits at most that long for it.
//
// A serial run's context (`w` of a serial pool) has nothing of its own to serve; the worker that
// entered it does: in a.run -> serial s.run -> c.run -> a.run, c's worker queues the inner a.run for
// a's workers, and a's only one (or the caller holding a's only slot) is this thread, waiting here
// (a hang under every policy but serial, found by stop 46's lifecycle hunt).  So it takes the root
// jobs of that worker's pool (the first in the serial_caller chain that is no serial context) and
// runs them here, inline and serially, as runs_in has an a.run made inside s's run itself run.
void runtime::wait_serving(worker& w, root_job& job) {
  runtime* entered_from = nullptr;
  if (runs_on_caller) {
    const worker* c = w.serial_caller;
    while (c != nullptr && c->rt->runs_on_caller) c = c->serial_caller;
    if (c != nullptr) entered_from = c->rt;
  }
  serve_until_done(job, [&] { return entered_from != nullptr ? entered_from->run_root_inline() : find_work(w); });
  std::unique_lock lk(job.m);
  job.cv.wait(lk, [&] { return job.done; });
}

void submit(runtime* rt, root_job& job) { rt->submit(job); }

void submit_and_wait(runtime* rt, root_job& job) {
  // Counted until the run touches the pool no more (a borrowed slot is given back, the job is done).
  struct in_flight {
    runtime* rt;
    explicit in_flight(runtime* r) noexcept : rt(r) { rt->runs_in_flight.fetch_add(1, std::memory_order_relaxed); }
    ~in_flight() { rt->runs_in_flight.fetch_sub(1, std::memory_order_release); }
  } counted(rt);
  if (!rt->runs_on_caller) rt->check_not_stopping();
  if (tls_hot.self == nullptr && rt->run_on_idle_slot(job)) return;  // on this thread: its own handlers
  rt->submit(job);
  wait_for(job);
}

// A worker of rt, or a serial run's context entered from one (worker::serial_caller): in a cycle
// a.run -> serial b.run -> a.run the inner run must not be queued for a's workers, one of which is
// this very thread, waiting in b's context where it serves nothing of a (a hung with one worker,
// found by stop 41's bug hunt).  It runs inline, on the serial context (serially, as b's run does).
bool runs_in(const runtime* rt) noexcept {
  for (const worker* w = tls_hot.self; w != nullptr; w = w->rt->runs_on_caller ? w->serial_caller : nullptr)
    if (w->rt == rt) return true;
  return false;
}

}  // namespace weft::detail
