// weft — the fiber engine: NAR's space-efficient schedulers AsyncDF (adf) and DFDeques (dfd), and
// the FIFO scheduler they are measured against (fifo), over one mechanism (SPEC §5).  Every join
// forks a thread (a fiber, fiber_thread.hpp); a worker runs a thread until it forks, blocks at a
// join, runs out of its memory quota or terminates, then its scheduler loop (run_from) carries the
// request out under the scheduler's lock and takes what the policy says runs next.  The policies
// differ only in the ready structure and in those decisions:
//
//   adf   R, one list of every live thread in serial depth-first order (NAR §5.3, the Pthreads
//         variant of Fig 3.2: no Qin/Qout, every worker takes from R under the scheduler lock).  A
//         fork places the child immediately left of its parent and preempts the parent; a worker
//         takes the leftmost ready thread; a preempted or woken thread keeps its place.  Each
//         scheduling grants the thread K bytes.
//   dfd   R', an ordered list of deques (NAR Fig 6.4).  A worker owns at most one deque; a fork
//         pushes the parent on top of it and runs the child; a join that wakes its parent goes on
//         with the parent; a worker with nothing left deletes its empty deque and steals: one of the
//         leftmost p deques at random, its bottom thread into a new deque right of the victim.  The
//         quota is granted per steal; a worker that exhausts it pushes its thread, gives its deque
//         up (it stays in R') and steals.  K = infinity is work stealing (NAR §6.2).
//   fifo  one global FIFO queue (the original Solaris library's, NAR §5.3): a fork queues the
//         child and the parent goes on; woken threads queue at the tail.
//
// Where this follows NAR's ideal algorithms and not their Pthreads approximations (NAR §7.1): the
// steal always takes the bottom thread into a new deque (§7.1 took over an unowned deque whole),
// and a woken parent continues on the worker that woke it (§7.1 left it in a deque of its own);
// the Pthreads library needed both for its mutexes and condition variables, which weft has not.
// Access to R and R' is serialized by one lock, as in NAR §5.3 and §7.1.
#include <boost/context/fiber.hpp>

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <new>

#include <cxxabi.h>

#include "fiber_stack.hpp"
#include "fiber_thread.hpp"
#include "pool_runtime.hpp"
#include "weft/detail/checks.hpp"

namespace weft::detail {

__attribute__((noinline, noipa)) eh_state* thread_eh_state() noexcept {
  static_assert(sizeof(eh_state) == 2 * sizeof(void*) && offsetof(eh_state, uncaught) == sizeof(void*),
                "eh_state: the ABI's __cxa_eh_globals layout (a pointer, then an unsigned int)");
  return reinterpret_cast<eh_state*>(abi::__cxa_get_globals());
}

namespace {

// dfd: one deque of ready threads; front = bottom, back = top.
struct thread_deque {
  std::deque<fiber_thread*> threads;
  int owner = -1;  // the worker that owns it, or -1
  thread_deque* left = nullptr;
  thread_deque* right = nullptr;
};

class fiber_scheduler;

// The scheduler lock, checked for a fork (fiber_stack.hpp): in the child of a fork() called inside a
// task, a lock another worker held at the fork is held for ever, and that child waited for it (1 in
// ~20 such children under adf, found by stop 46's lifecycle hunt).  It ends, saying so.
using scheduler_lock = fork_checked_mutex;

// A worker's state under the fiber engine.
struct fiber_state final : mechanism_state {
  fiber_scheduler* engine = nullptr;
  fiber_thread* current = nullptr;  // the thread this worker runs now (its loop's)
  thread_deque* own = nullptr;      // dfd: the deque it owns
  std::size_t quota_left = 0;       // dfd: bytes left of the quota of its last steal
  // A pool::run caller on this slot (serve_borrowed): the job whose threads alone it runs.
  const root_job* serving = nullptr;
};

fiber_state& state_of(const worker& w) noexcept { return static_cast<fiber_state&>(*w.mechanism); }

// A worker of this pool that waits for a job of another pool serves its own pool meanwhile
// (runtime::wait_serving: the a.run -> b.run -> a.run cycle needs it), in a scheduler loop on top
// of the waiting thread's fiber.  That loop starts with no deque and no quota of its own (dfd, NAR
// Fig 6.4: currS = NULL), and the waiting thread gets its deque and quota back when it ends.  The
// deque set aside stays in R', owned and often empty, while its owner steals: the engine counts it
// (fiber_scheduler::set_aside_, steal_attempt's window).  On a borrowed slot that loop serves the
// whole pool, not the borrower's job alone (serve_borrowed): in a.run -> b.run -> a.run entered by a
// caller holding a's only slot, the inner a.run's threads have no one else to run them.  It takes
// other jobs' threads as well (PROTOCOLS.md §9a: the one place a borrower does).
class nested_loop {
 public:
  explicit nested_loop(fiber_state& s) noexcept;
  ~nested_loop();
  nested_loop(const nested_loop&) = delete;
  nested_loop& operator=(const nested_loop&) = delete;

 private:
  fiber_state& s_;
  thread_deque* const own_;
  const std::size_t quota_left_;
  const root_job* const serving_;
};

// A doubly linked list through fiber_thread::left/right (adf's R, fifo's queue).
struct thread_list {
  fiber_thread* head = nullptr;
  fiber_thread* tail = nullptr;
  void insert_left_of(fiber_thread* t, fiber_thread* pos) noexcept {
    t->right = pos;
    t->left = pos->left;
    (pos->left ? pos->left->right : head) = t;
    pos->left = t;
  }
  void push_back(fiber_thread* t) noexcept {
    t->left = tail;
    t->right = nullptr;
    (tail ? tail->right : head) = t;
    tail = t;
  }
  void remove(fiber_thread* t) noexcept {
    (t->left ? t->left->right : head) = t->right;
    (t->right ? t->right->left : tail) = t->left;
    t->left = t->right = nullptr;
  }
};

class fiber_scheduler final : public scheduler {
  friend class nested_loop;

 public:
  fiber_scheduler(runtime& rt, policy p)
      : rt_(rt), policy_(p), quota_(p == policy::fifo ? unlimited_quota : rt.cfg.quota_bytes),
        stacks_(rt, rt.cfg.fiber_stack_bytes) {}

  ~fiber_scheduler() override {
    for (thread_deque* d = deques_head_; d != nullptr;) delete std::exchange(d, d->right);
  }

  void attach(worker& w) override {
    auto s = std::make_unique<fiber_state>();
    s->engine = this;
    w.mechanism = std::move(s);
  }
  std::uint32_t initial_poll_bits(worker&) override { return poll_bit::fibers; }
  std::uint32_t idle_poll_bits(const worker&) const override { return poll_bit::fibers; }
  void promote_at_poll(worker&, hot_state&, frame*) override { unreachable("promote_at_poll"); }
  reclaimed reclaim(worker&, hot_state&, frame*) override { unreachable("reclaim"); }
  bool promote_frame(worker&, frame*) override { return false; }

  // Ready threads exist (the sleep protocol's check: read after the sleeper's fence, PROTOCOLS §4).
  bool has_stealable(const worker&) const override { return ready_.load(std::memory_order_seq_cst) != 0; }

  bool steal(worker& w, worker&) override { return take_ready(w); }

  bool start_root(worker& w, root_job& job) override {
    const nested_loop nested(state_of(w));
    fiber_thread* t = root_thread(w, job);
    if (t == nullptr) return true;  // no stack: the job failed (make_thread)
    rt_.end_idle(w);
    run_from(w, t);
    return true;
  }

  // pool::run's caller on a sleeping worker's slot (runtime::run_on_idle_slot): before this, every
  // job was queued for a woken worker, 70-76 us on an idle pool where a borrowed slot of the other
  // engines takes 3-5 (issue 9, item 3: <= 20).  The caller runs its root thread at once, then, as
  // the slot's worker, the threads of its own job that the policy gives it (its root may block at a
  // join whose child another worker runs, and move at a join), until the job is done; with none of
  // its job's threads ready it spins a little, then sleeps on the job in waits that grow to 1 ms,
  // looking again after each (runtime::wait_serving's pattern).
  //
  // Why its own job's threads only: compiled code may keep the address of a thread_local (tls_hot
  // among them) in a register across a call, so a fiber that ran on this thread and moved may still
  // read, or bump a count in, this thread's hot state.  Every such fiber is the job's: when the job
  // is done none of them runs any more, and the caller's thread may restore its state or exit (it
  // keeps it until then, also where it gave the slot back: run_on_idle_slot).  A thread of another
  // job taken here could touch it after that.  (A TBB arena's master thread, too, runs only its
  // arena's tasks.)
  //
  // Why it gives the slot back when it would sleep while other work waits (a queued job, another
  // job's ready thread): holding an idle slot it may not use, it kept that work from the slot's
  // thread, and if the job waited for that work — a task blocking its worker until another
  // thread's pool::run returns, queued for want of a slot — nothing ever ran it (found by stop 53's
  // fiberlend hunt: 5 hangs in 15 runs under adf).  Given back, the slot's thread runs it, and the
  // caller only waits.
  bool serve_borrowed(worker& w, root_job& job) override {
    fiber_state& s = state_of(w);
    WEFT_ASSERT(s.current == nullptr && s.own == nullptr, "a lent slot that runs a thread or owns a deque");
    s.serving = &job;
    if (fiber_thread* t = root_thread(w, job)) run_from(w, t);
    // Between threads it runs, the borrower waits for work as the slot's worker would look for it:
    // idle time of the slot (counters::idle_ns; its trace lane shows it so), from the end of each
    // thread it ran until the next (take_ready's end_idle) or the end (run_on_idle_slot's).
    w.idle_since.store(now_ns(), std::memory_order_relaxed);
    const bool done = serve_until_done(
        job,
        [&] {
          if (!take_ready(w)) return false;
          w.idle_since.store(now_ns(), std::memory_order_relaxed);
          return true;
        },
        [&] {
          // In the child of a fork() called inside a task of this job, this thread is the pool's
          // only one there: none of the job's threads can become ready again, and it would wait for
          // ever (a worker ends the same way before it sleeps, runtime::worker_main).  Found by stop
          // 53's fiberlend hunt: a branch that forked on the caller and returned in the child hung it.
          if (rt_.made_before_fork()) [[unlikely]] runtime::end_forked_child();
          return !rt_.work_visible();
        });
    WEFT_ASSERT(s.current == nullptr && s.own == nullptr, "a borrower between threads that runs one or owns a deque");
    s.serving = nullptr;
    return done;
  }

 private:
  // The idle loop's attempt (and a borrower's): none while nothing is ready; else, counted as a
  // steal attempt, adf and fifo take the first ready thread, dfd makes one steal attempt (NAR Fig
  // 6.4 steal(): one iteration of its loop).  Then the worker runs from it.
  bool take_ready(worker& w) {
    if (!has_stealable(w)) return false;
    bump(w.steal_attempts);
    const nested_loop nested(state_of(w));
    fiber_thread* t;
    std::uint32_t victim = no_victim;
    {
      std::lock_guard lk(mu_);
      t = policy_ == policy::dfd ? steal_attempt(w, victim) : next_ready(w);
    }
    if (t == nullptr) return false;
    // Under dfd a worker serving its pool while its thread waits for another pool's job (nested_loop)
    // may draw its own deque, set aside in R': that thread is its own forked work, taken back, not a
    // theft (stop 49's seeing-inside hunt: a one-worker pool counted a steal, and the trace showed
    // the worker stealing from itself, with a stolen-from on its own lane).
    if (victim != w.index) {
      ++w.steals;
      // The trace's steal instant: under dfd the owner of the deque it came from; under adf and fifo
      // (the shared structure) and from an unowned deque, no victim worker.
      if (w.trace) w.trace->instant(trace_kind::steal, victim, 0);
    }
    rt_.end_idle(w);
    run_from(w, t);
    return true;
  }

  // `job`'s root thread, running on `w` (dfd: in a new deque of w's at the right end of R'); nullptr
  // when it got no stack (make_thread: the job failed as if it threw).
  fiber_thread* root_thread(worker& w, root_job& job) {
    fiber_thread* t = make_thread(nullptr, &job);
    if (t == nullptr) return nullptr;
    t->job_of = &job;
    std::lock_guard lk(mu_);
    rt_.live.add();
    t->st = fiber_thread::state::running;
    t->quota_left = quota_;
    if (policy_ == policy::adf) r_.push_back(t);  // the newest root has the lowest priority
    if (policy_ == policy::dfd) {
      fiber_state& s = state_of(w);
      s.own = new_deque(int(w.index), deques_tail_);
      s.quota_left = quota_;
    }
    return t;
  }

 public:
  std::uint64_t fiber_stack_peak_bytes() const override { return stacks_.peak() * stacks_.stack_bytes(); }
  void reset_peaks() override { stacks_.reset_peak(); }

  // fiber_fork / fiber_wait / the quota, on the calling thread's own stack.
  fork_outcome fork(worker& w, fiber_child& c);  // a join's first branch: placement decides
  void wait(fiber_child& c) noexcept;
  void before_alloc(std::size_t bytes);

 private:
  [[noreturn]] static void unreachable(const char* what) {
    fatal("internal error: %s under the fiber engine", what);
  }

  fiber_thread* make_thread(fiber_child* body, root_job* job);
  static boost::context::fiber entry(fiber_thread* t, boost::context::fiber&& loop);
  void run_from(worker& w, fiber_thread* t);
  fiber_thread* after_switch(worker& w, fiber_thread* t, bool& made_ready);
  fiber_thread* on_fork(worker& w, fiber_thread* t);
  fiber_thread* on_terminate(worker& w, fiber_thread* t, bool& made_ready);
  fiber_thread* on_preempt(worker& w, fiber_thread* t);
  fiber_thread* next_for(worker& w);
  fiber_thread* next_ready(const worker& w);
  fiber_thread* steal_attempt(worker& w, std::uint32_t& victim_owner);
  void make_ready(fiber_thread* t) noexcept;
  // A forked thread starts or ends: its maker's live count (worker::fibers_live), under mu_.
  static void count_made(worker& maker) noexcept {
    if (++maker.fibers_live > maker.fibers_live_peak) maker.fibers_live_peak = maker.fibers_live;
  }
  void fork_dummies(std::size_t n);
  fork_outcome placement(const fiber_thread* self) const noexcept;
  thread_deque* new_deque(int owner, thread_deque* right_of);
  void delete_deque(thread_deque* d) noexcept;
  fiber_thread* running_thread() const noexcept;

  runtime& rt_;
  const policy policy_;
  const std::size_t quota_;  // K
  fiber_stack_pool stacks_;
  scheduler_lock mu_{rt_};  // the scheduler lock: R, R', the queue, every thread's st
  thread_list r_;            // adf: R; fifo: the queue
  thread_deque* deques_head_ = nullptr;  // dfd: R', left to right
  thread_deque* deques_tail_ = nullptr;
  std::atomic<std::size_t> ready_{0};    // threads in state ready (written under mu_)
  // dfd: deques in R' owned by a worker's waiting thread while that worker runs a nested loop
  // (nested_loop); steal_attempt widens its window by them.  Relaxed: it only sizes a random
  // choice (the deques themselves are read under mu_), so a stale count skews one choice at most.
  std::atomic<std::size_t> set_aside_{0};
};

nested_loop::nested_loop(fiber_state& s) noexcept
    : s_(s), own_(s.own), quota_left_(s.quota_left), serving_(s.serving) {
  s.own = nullptr;
  if (s.current != nullptr) s.serving = nullptr;  // a loop on top of a running thread
  if (own_ != nullptr) s.engine->set_aside_.fetch_add(1, std::memory_order_relaxed);
}

nested_loop::~nested_loop() {
  if (own_ != nullptr) s_.engine->set_aside_.fetch_sub(1, std::memory_order_relaxed);
  s_.own = own_;
  s_.quota_left = quota_left_;
  s_.serving = serving_;
}

fiber_thread* fiber_scheduler::running_thread() const noexcept {
  fiber_thread* t = state_of(*tls_hot.self).current;
  WEFT_ASSERT(t != nullptr, "a fiber-engine join outside a fiber");
  return t;
}

// A new thread with its fiber and stack; nullptr (and the job failed) when a root gets no stack.  A
// forked child's failure throws to the forking parent instead (fiber_fork: nothing forked).
fiber_thread* fiber_scheduler::make_thread(fiber_child* body, root_job* job) {
  std::unique_ptr<fiber_thread> t;
  try {
    // The record too: a root's std::bad_alloc escaping from here would leave a worker's idle loop
    // (start_root: std::terminate) or a borrower's run with its slot lent (serve_borrowed).
    t = std::make_unique<fiber_thread>();
    t->body = body;
    t->job = job;
    fiber_thread* raw = t.get();
    t->ctx = boost::context::fiber(std::allocator_arg, pooled_stack{&stacks_, &t->stack_lowest, &t->stack_retired},
                                   [raw](boost::context::fiber&& loop) { return entry(raw, std::move(loop)); });
  } catch (...) {
    if (job == nullptr) throw;
    job->error = std::current_exception();
    finish_root(*job);
    return nullptr;
  }
#ifdef WEFT_FIBER_ASAN
  t->stack_size = stacks_.stack_bytes();
#endif
#ifdef WEFT_FIBER_TSAN
  t->tsan_fiber = __tsan_create_fiber(0);
#endif
  return t.release();
}

boost::context::fiber fiber_scheduler::entry(fiber_thread* t, boost::context::fiber&& loop) {
  t->back = std::move(loop);
  t->landed();
  if (t->job != nullptr) {
    run_root_body(*t->job);
    // A root ends for the counters before its caller learns it: stats read after run() returns see
    // it gone (on_terminate counts forked threads only), its live count and its stack, which it
    // gives back only at its last switch — after a reset_stats() between runs the next run's
    // fiber_stack_peak_bytes counted it too (test Fibers.StackPeakAfterAResetCountsThisRunOnly).
    tls_hot.self->rt->live.sub();
    t->stack_retired = true;
    state_of(*tls_hot.self).engine->stacks_.retire();
    finish_root(*t->job);
  } else if (t->body->handled) [[unlikely]] {
    run_handling(t->body->handled, [t] { t->body->run(t->body); });  // fiber_child::handled
  } else {
    t->body->run(t->body);
  }
  t->req = fiber_thread::request::terminate;
  return t->leave();
}

// A worker's scheduler loop: runs `t`, then what the policy hands this worker next, until nothing.
// A loop may run on a fiber (a worker serving its pool while it waits for another pool's job): the
// thread it interrupted is restored as the worker's current one at the end.
void fiber_scheduler::run_from(worker& w, fiber_thread* t) {
  fiber_state& s = state_of(w);
  fiber_thread* const interrupted = s.current;
  w.trace_enter(activity::work);
  while (t != nullptr) {
    s.current = t;  // every way to here marked it running under the lock
    resume_thread(t);
    bool made_ready = false;
    t = after_switch(w, t, made_ready);
    if (made_ready) rt_.notify_work();  // after the unlock: a wake may enter the kernel
  }
  s.current = interrupted;
  w.trace_leave();
}

// The request of the thread that just switched back, carried out under the lock; returns the
// thread this worker runs next (nullptr: back to the idle loop).
fiber_thread* fiber_scheduler::after_switch(worker& w, fiber_thread* t, bool& made_ready) {
  std::unique_lock lk(mu_);
  switch (t->req) {
    case fiber_thread::request::fork:
      made_ready = true;
      return on_fork(w, t);
    case fiber_thread::request::block:
      // The child may have terminated since the parent looked (it completes under this lock).
      if (t->waits_for->pending.load(std::memory_order_relaxed) == 0) return t;
      t->st = fiber_thread::state::blocked;
      t->waits_for->waiter = t;
      return next_for(w);
    case fiber_thread::request::preempt:
      made_ready = true;
      return on_preempt(w, t);
    case fiber_thread::request::terminate:
      return on_terminate(w, t, made_ready);
    case fiber_thread::request::none:
      break;
  }
  unreachable("a fiber switched back without a request");
}

// adf, dfd: the child preempts its parent (NAR Fig 3.2, Fig 6.4).  (fifo never switches to fork.)
fiber_thread* fiber_scheduler::on_fork(worker& w, fiber_thread* t) {
  fiber_thread* c = t->forked;
  t->forked = nullptr;
  if (policy_ == policy::adf) {
    r_.insert_left_of(c, t);  // serial order: the child's work comes before the parent's rest
  } else {
    state_of(w).own->threads.push_back(t);  // on top
  }
  make_ready(t);
  count_made(*c->maker);
  c->st = fiber_thread::state::running;  // before the lock goes: adf's R holds the child already
  c->quota_left = quota_;                // adf: a scheduling of the child
  return c;
}

// A thread ran out of quota (or, under dfd, ran a dummy thread): adf puts it back in its place and
// takes the leftmost ready thread (perhaps itself, with a new quota); dfd pushes it on top of the
// deque, gives the deque up and steals (NAR Fig 6.4 case "mem quota exhausted").
fiber_thread* fiber_scheduler::on_preempt(worker& w, fiber_thread* t) {
  make_ready(t);
  if (policy_ == policy::adf) return next_ready(w);
  fiber_state& s = state_of(w);
  s.own->threads.push_back(t);
  s.own->owner = -1;
  s.own = nullptr;
  return nullptr;
}

fiber_thread* fiber_scheduler::on_terminate(worker& w, fiber_thread* t, bool& made_ready) {
  fiber_child* const body = t->body;
  const bool dummy = t->dummy;
  if (policy_ == policy::adf) r_.remove(t);
  if (body != nullptr) {
    rt_.live.sub();
    --t->maker->fibers_live;
  }
#ifdef WEFT_FIBER_TSAN
  __tsan_destroy_fiber(t->tsan_fiber);
#endif
  delete t;
  fiber_thread* parent = nullptr;
  if (body != nullptr) {
    parent = static_cast<fiber_thread*>(body->waiter);
    // The last touch of the child's record: its parent may return from fiber_wait and destroy it
    // as soon as it reads 0 (acquire: the branch's result, written before this, is visible then).
    body->pending.store(0, std::memory_order_release);
  }
  if (parent != nullptr) {
    if (policy_ == policy::dfd && !dummy) {
      parent->st = fiber_thread::state::running;
      return parent;  // NAR Fig 6.4: currT := the woken parent
    }
    made_ready = true;
    make_ready(parent);
    if (policy_ == policy::fifo) r_.push_back(parent);
    if (policy_ == policy::dfd) state_of(w).own->threads.push_back(parent);
  }
  if (policy_ == policy::dfd && dummy) {
    // NAR §6.2: a worker that executed a dummy thread gives its deque up and steals.
    fiber_state& s = state_of(w);
    if (s.own->threads.empty()) {
      delete_deque(s.own);
    } else {
      s.own->owner = -1;
    }
    s.own = nullptr;
    return nullptr;
  }
  return next_for(w);
}

// After a block or a termination that woke nobody: adf and fifo take the first ready thread; dfd
// pops the top of its own deque, or deletes the empty deque and goes stealing.
fiber_thread* fiber_scheduler::next_for(worker& w) {
  if (policy_ != policy::dfd) return next_ready(w);
  fiber_state& s = state_of(w);
  if (s.own->threads.empty()) {
    delete_deque(s.own);
    s.own = nullptr;
    return nullptr;
  }
  fiber_thread* t = s.own->threads.back();
  s.own->threads.pop_back();
  ready_.fetch_sub(1, std::memory_order_relaxed);
  t->st = fiber_thread::state::running;
  return t;
}

// adf: the leftmost ready thread of R, granted K bytes; fifo: the head of the queue.  For a
// borrower (serve_borrowed), the leftmost or first one of its own job.
fiber_thread* fiber_scheduler::next_ready(const worker& w) {
  const root_job* const only = state_of(w).serving;
  fiber_thread* t = r_.head;
  if (policy_ == policy::adf) {
    while (t != nullptr && (t->st != fiber_thread::state::ready || (only != nullptr && t->job_of != only))) t = t->right;
  } else {
    while (t != nullptr && only != nullptr && t->job_of != only) t = t->right;
    if (t != nullptr) r_.remove(t);
  }
  if (t == nullptr) return nullptr;
  ready_.fetch_sub(1, std::memory_order_relaxed);
  t->st = fiber_thread::state::running;
  t->quota_left = quota_;
  return t;
}

// dfd (NAR Fig 6.4 steal()): the bottom thread of one of the leftmost p deques, chosen at random,
// into a new deque of this worker right of the victim, with a fresh quota.  NAR's window of p holds
// a ready thread whenever R' has one: a worker that steals owns no deque, so at most p - 1 of them
// are owned, and an unowned deque is never empty (deleted when it empties).  A deque set aside by a
// nested loop (a worker serving its pool while its thread waits for another pool) is owned by a
// worker that steals, so each one widens the window by one: with p alone, one worker waiting in
// the a.run -> b.run -> a.run cycle always drew its own empty deque, and the inner job's thread,
// preempted by the quota into an unowned deque right of it, was never taken again (a hang, stop
// 47's fiber hunt; test Fibers.QuotaPreemptionInsideAPoolCycle).
fiber_thread* fiber_scheduler::steal_attempt(worker& w, std::uint32_t& victim_owner) {
  thread_deque* victim = deques_head_;
  if (const root_job* const only = state_of(w).serving) {
    // A borrower: the leftmost deque whose bottom thread is of its own job (serve_borrowed).
    while (victim != nullptr && (victim->threads.empty() || victim->threads.front()->job_of != only))
      victim = victim->right;
    if (victim == nullptr) return nullptr;
  } else {
    std::size_t m = w.random_below(rt_.workers.size() + set_aside_.load(std::memory_order_relaxed));
    while (victim != nullptr && m-- > 0) victim = victim->right;
    if (victim == nullptr || victim->threads.empty()) return nullptr;
  }
  fiber_thread* t = victim->threads.front();
  victim->threads.pop_front();
  ready_.fetch_sub(1, std::memory_order_relaxed);
  if (victim->owner >= 0) victim_owner = std::uint32_t(victim->owner);
  fiber_state& s = state_of(w);
  s.own = new_deque(int(w.index), victim);
  s.quota_left = quota_;
  if (victim->owner < 0 && victim->threads.empty()) delete_deque(victim);
  t->st = fiber_thread::state::running;
  return t;
}

void fiber_scheduler::make_ready(fiber_thread* t) noexcept {
  t->st = fiber_thread::state::ready;
  // The sleep protocol's publishing store (PROTOCOLS §4): notify_work's fence follows it.
  ready_.fetch_add(1, std::memory_order_relaxed);
}

thread_deque* fiber_scheduler::new_deque(int owner, thread_deque* right_of) {
  auto* d = new thread_deque;
  d->owner = owner;
  d->left = right_of;
  d->right = right_of ? right_of->right : deques_head_;
  (d->right ? d->right->left : deques_tail_) = d;
  (right_of ? right_of->right : deques_head_) = d;
  return d;
}

void fiber_scheduler::delete_deque(thread_deque* d) noexcept {
  (d->left ? d->left->right : deques_head_) = d->right;
  (d->right ? d->right->left : deques_tail_) = d->left;
  delete d;
}

// Where a join goes.  On a stack with less than half its size free it moves, both branches, to a
// thread of its own that starts on a fresh stack (join_moved, fiber_join.hpp), whatever the live
// count: forking only its first branch left the second, and all it nests, on the short stack, and a
// chain nested through second branches overflowed it (stop 56's forklimit hunt).  Otherwise, past
// config::fiber_fork_limit live threads, it runs its branches on the thread that meets it — its
// serial elision, the order adf and dfd give it on one worker.  Without the limit every level of
// nesting was a live thread with a stack of its own (two mappings each), and a program stopped at
// about 32,700 of them under Linux's default vm.max_map_count: 10^6 nested joins (issue 9), or
// fifo's breadth-first order on fib past ~24.  A thread that runs a join inline exposes nothing to
// other workers until it forks again; with thousands of live threads there is work enough
// elsewhere, and none of NAR's space bounds (§3.2, §6.2, §7.1) grows: the inline branches are the
// depth-first order those bounds are measured from.  The live count is read relaxed: a heuristic,
// any recent value will do.
fork_outcome fiber_scheduler::placement(const fiber_thread* self) const noexcept {
  const char* const here = static_cast<const char*>(__builtin_frame_address(0));
  const char* const lowest = static_cast<const char*>(self->stack_lowest);
  const std::size_t size = stacks_.stack_bytes();
  // The stack grows down to `lowest`; a frame outside it (none is expected) forks as NAR's rule does.
  if (here < lowest || here >= lowest + size) return fork_outcome::forked;
  if (here < lowest + size / 2) return fork_outcome::move_join;
  const std::int64_t live = rt_.live.now.load(std::memory_order_relaxed);
  if (live >= 0 && std::uint64_t(live) >= rt_.cfg.fiber_fork_limit) return fork_outcome::run_inline;
  return fork_outcome::forked;
}

fork_outcome fiber_scheduler::fork(worker& w, fiber_child& c) {
  fiber_thread* self = running_thread();
  // The join counts when it is made, before its fork may fail, as a join counts under every other
  // policy: a loop's split has taken its count back already (loops.hpp, uncount_split), and a fork
  // that found no stack and counted nothing left the count one low per failed split (stop 51's
  // stats hunt: a fifo loop out of stacks read 2^64 - 13,256 joins).  So a moved join counts when
  // it moves, not when its mover forks (c.moved) nor when the mover runs it (c.counted).
  if (!c.dummy && !c.moved) {
    if (!c.counted) ++w.hot->joins;
    const fork_outcome where = placement(self);
    // A moved join moves no further: a fresh stack less than half free before the join began (a
    // few KiB under a sanitizer's frames) would fork movers without end.  It forks its first branch.
    if (where == fork_outcome::run_inline || (where == fork_outcome::move_join && !c.counted)) return where;
  }
  fiber_thread* child = make_thread(&c, nullptr);  // may throw: nothing forked
  child->job_of = self->job_of;
  child->dummy = c.dummy;
  child->maker = &w;
  if (c.dummy) {
    ++w.dummy_threads;
  } else {
    c.handled = std::current_exception();  // the parent's, as it runs here: fiber_child::handled
    // The branch is a call of the parent's in the serial elision, and part of any cleanup the
    // parent is in: it starts counting the parent's exceptions in flight, as every other policy's
    // inline first branch does.  A new fiber's count was 0, and a join made by a destructor during
    // unwinding had scopes in its first branch rethrow their tasks' errors out of the destructor,
    // under adf, dfd and fifo alone (stop 52's exc2 hunt).  The count stays the fiber's own (its
    // throws and catches leave it as they found it) and ends with it.
    child->eh.uncaught = thread_eh_state()->uncaught;
    w.ledger.count_promotion();
    report_promotion(w, w.stack.begin(), promotion_kind::join);  // the trace's instant, the test hook
  }
  if (policy_ == policy::fifo) {
    {
      std::lock_guard lk(mu_);
      rt_.live.add();
      count_made(w);
      r_.push_back(child);
      make_ready(child);
    }
    rt_.notify_work();
    return fork_outcome::forked;
  }
  rt_.live.add();
  self->req = fiber_thread::request::fork;
  self->forked = child;
  self->switch_to_scheduler();
  return fork_outcome::forked;
}

void fiber_scheduler::wait(fiber_child& c) noexcept {
  if (c.pending.load(std::memory_order_acquire) == 0) return;
  fiber_thread* self = running_thread();
  self->req = fiber_thread::request::block;
  self->waits_for = &c;
  self->switch_to_scheduler();
  // Resumed by the child's termination: it stored 0 under the lock that the resumer took since.
  WEFT_ASSERT(c.pending.load(std::memory_order_acquire) == 0, "a blocked join resumed before its child ended");
}

// NAR §5.3 / §6.2: an allocation of m > K bytes first forks about m/K dummy threads (a binary tree:
// joins are binary), so that higher-priority threads run first; an allocation that exceeds what is
// left of the quota preempts the thread before it allocates.
void fiber_scheduler::before_alloc(std::size_t bytes) {
  if (quota_ == unlimited_quota) return;
  if (bytes > quota_) fork_dummies(bytes / quota_);
  worker* w = tls_hot.self;  // read again after each switch: the thread may run elsewhere now
  fiber_thread* self = running_thread();
  std::size_t* left = policy_ == policy::adf ? &self->quota_left : &state_of(*w).quota_left;
  if (bytes > *left) {
    ++w->quota_preemptions;
    self->req = fiber_thread::request::preempt;
    self->switch_to_scheduler();
    w = tls_hot.self;
    left = policy_ == policy::adf ? &self->quota_left : &state_of(*w).quota_left;
  }
  *left -= bytes < *left ? bytes : *left;
}

// n dummy threads as a binary tree below the caller: two children, each the root of a subtree.
void fiber_scheduler::fork_dummies(std::size_t n) {
  struct dummy_child : fiber_child {
    std::size_t subtree;
  };
  if (n == 0) return;
  dummy_child a, b;
  a.subtree = (n + 1) / 2;
  b.subtree = n - a.subtree;
  for (dummy_child* d : {&a, &b}) {
    d->dummy = true;
    d->run = [](fiber_child* c) {
      try {
        state_of(*tls_hot.self).engine->fork_dummies(static_cast<dummy_child*>(c)->subtree - 1);
      } catch (...) {
        c->error = std::current_exception();  // no stack for a dummy: the allocation fails with it
      }
    };
  }
  fork(*tls_hot.self, a);
  std::exception_ptr second_error;
  if (b.subtree != 0) {
    try {
      fork(*tls_hot.self, b);
    } catch (...) {
      second_error = std::current_exception();
      b.subtree = 0;
    }
  }
  wait(a);
  if (b.subtree != 0) wait(b);
  for (const std::exception_ptr& e : {a.error, second_error, b.error})
    if (e) std::rethrow_exception(e);
}

fiber_scheduler& engine_of(const worker& w) noexcept { return *state_of(w).engine; }

}  // namespace

fork_outcome fiber_fork(fiber_child& c) {
  worker& w = *tls_hot.self;
  return engine_of(w).fork(w, c);
}

void fiber_wait(fiber_child& c) noexcept { engine_of(*tls_hot.self).wait(c); }

void fiber_before_alloc(std::size_t bytes) { engine_of(*tls_hot.self).before_alloc(bytes); }

std::unique_ptr<scheduler> make_fiber_scheduler(runtime& rt, policy p) {
  return std::make_unique<fiber_scheduler>(rt, p);
}

const void* running_fiber() noexcept {
  const hot_state& h = tls_hot;
  if (h.self == nullptr || !(h.poll.load(std::memory_order_relaxed) & poll_bit::fibers)) return nullptr;
  return state_of(*h.self).current;
}

const void* running_job() noexcept {
  const hot_state& h = tls_hot;
  if (h.self == nullptr || !(h.poll.load(std::memory_order_relaxed) & poll_bit::fibers)) return nullptr;
  const fiber_thread* const t = state_of(*h.self).current;
  return t != nullptr ? t->job_of : nullptr;
}

std::uint32_t& frameless_handles() noexcept {
  hot_state& h = tls_hot;
  if (h.self == nullptr || !(h.poll.load(std::memory_order_relaxed) & poll_bit::fibers)) return h.frameless_handles;
  fiber_thread* const t = state_of(*h.self).current;
  return t != nullptr ? t->frameless_handles : h.frameless_handles;
}

}  // namespace weft::detail
