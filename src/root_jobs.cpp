// weft — root jobs: pool::run from a thread outside the pool (queued for a worker, the caller
// sleeps until done), and under the serial policy, runs on the calling thread itself.
#include "chaos.hpp"
#include "measure.hpp"
#include "pool_runtime.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace weft::detail {

namespace {

void run_body(root_job& job) {
  measured_root measured(tls_hot);  // the work/span mode, when on (work_span.cpp)
  try {
    job.body(&job);
  } catch (...) {
    job.error = std::current_exception();
  }
}

// Notify under the lock: the waiter may destroy the job as soon as it sees `done`.
void mark_done(root_job& job) {
  std::lock_guard lk(job.m);
  job.done = true;
  WEFT_CHAOS_POINT();  // done under the lock, hint not yet set: the caller's spin must not decide alone
  job.done_hint.store(true, std::memory_order_release);
  job.cv.notify_one();
}

}  // namespace

void runtime::submit(root_job& job) {
  if (runs_on_caller) {
    run_on_caller(job);
    return;
  }
  if (fork_generation != current_fork_generation())
    throw std::logic_error(
        "weft::pool::run: this pool was made before fork(); its worker threads do not exist in the child "
        "process. Make a new pool in the child (the global pool is remade there automatically)");
  {
    std::lock_guard lk(root_queue_mutex_);
    root_queue_.push_back(&job);
    root_queue_size_.fetch_add(1, std::memory_order_relaxed);
  }
  WEFT_CHAOS_POINT();  // queued, nobody woken yet
  notify_work();
}

bool runtime::take_root(worker& w) {
  root_job* job = nullptr;
  {
    std::lock_guard lk(root_queue_mutex_);
    if (root_queue_.empty()) return false;
    job = root_queue_.front();
    root_queue_.pop_front();
    root_queue_size_.fetch_sub(1, std::memory_order_relaxed);
  }
  WEFT_CHAOS_POINT();  // taken, not yet run: the caller waits in wait_for
  run_root(w, *job);
  return true;
}

void runtime::run_root(worker& w, root_job& job) {
  end_idle(w);
  w.trace_enter(activity::work);
  frame* saved = w.base;
  w.base = w.hot->top;
  run_body(job);
  w.trace_leave();
  WEFT_ASSERT(w.hot->top == w.base, "a root job returned with frames left on its task stack");
  w.base = saved;
  WEFT_CHAOS_POINT();  // finished, not yet marked done: the caller spins on done_hint, then sleeps
  mark_done(job);
}

// The serial policy: the caller runs the job itself, on a task stack of its own (a serial
// context), and its thread's hot state is restored afterwards.
void runtime::run_on_caller(root_job& job) {
  worker& ctx = serial_context_acquire();
  hot_state& h = tls_hot;
  // exchange, not load-then-store: a bit another pool's thief sets in between is kept (it is either
  // in saved_poll or set after the exchange; the closing fetch_or keeps both).
  const std::uint32_t saved_poll = h.poll.exchange(0, std::memory_order_relaxed);
  frame* saved_top = h.top;
  worker* saved_self = h.self;
  const std::uint64_t saved_joins = h.joins, saved_iters = h.loop_iterations;
  const loop_style saved_loops = h.loops_run_as;
  h.self = &ctx;
  h.top = ctx.stack.begin();
  h.loops_run_as = traits_of(cfg.policy).loops;
  run_body(job);
  ctx.retired_joins += h.joins - saved_joins;
  ctx.retired_loop_iterations += h.loop_iterations - saved_iters;
  h.self = saved_self;
  h.top = saved_top;
  h.joins = saved_joins;
  h.loop_iterations = saved_iters;
  h.poll.fetch_or(saved_poll, std::memory_order_relaxed);  // keeps bits others set meanwhile
  h.loops_run_as = saved_loops;
  serial_context_release(ctx);
  mark_done(job);
}

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
void runtime::wait_serving(worker& w, root_job& job) {
  using namespace std::chrono_literals;
  unsigned idle = 0;
  std::chrono::microseconds pause = 50us;
  while (!job.done_hint.load(std::memory_order_acquire)) {
    if (find_work(w)) {
      idle = 0;
      pause = 50us;
      continue;
    }
    if (++idle < 64) {
      cpu_relax();
      continue;
    }
    std::unique_lock lk(job.m);
    if (job.cv.wait_for(lk, pause, [&] { return job.done; })) break;
    pause = std::min<std::chrono::microseconds>(pause * 2, 1ms);
  }
  std::unique_lock lk(job.m);
  job.cv.wait(lk, [&] { return job.done; });
}

void submit(runtime* rt, root_job& job) { rt->submit(job); }

bool runs_in(const runtime* rt) noexcept {
  const worker* w = tls_hot.self;
  return w != nullptr && w->rt == rt;
}

}  // namespace weft::detail
