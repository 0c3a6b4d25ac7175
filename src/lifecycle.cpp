// weft — starting and stopping a pool's runtime: the scheduler, the worker threads, the heartbeat.
#include <cerrno>
#include <cstdio>
#include <latch>
#include <string>
#include <system_error>

#include <sched.h>

#include "beat_signal.hpp"
#include "config_resolve.hpp"
#include "eh_state.hpp"
#include "pool_runtime.hpp"

namespace weft::detail {

std::size_t usable_cpus() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return std::size_t(CPU_COUNT(&set));
  const unsigned hw = std::thread::hardware_concurrency();
  return hw != 0 ? hw : 1;
}

runtime::runtime(const config& resolved)
    : cfg(resolved), runs_on_caller(traits_of(resolved.policy).runs_on == mechanism::caller),
      uses_fibers(traits_of(resolved.policy).runs_on == mechanism::fibers),
      quota_applies(uses_fibers && (traits_of(resolved.policy).settings & policy_setting::quota) != 0 &&
                    resolved.quota_bytes != unlimited_quota),
      heartbeat_bits(traits_of(resolved.policy).when == trigger::heartbeat ? poll_bit::heartbeat : 0),
      fork_generation(current_fork_generation()),
      heap_id(register_heap_owner(*this)),
      theft_(theft_thresholds_for(traits_of(resolved.policy).runs_on == mechanism::wool_stack)),
      beat_period_ns_(std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(resolved.heartbeat).count())),
      cores_(usable_cpus()) {
  // The caller mechanism keeps a deque scheduler too: a serial context that another pool's thread
  // runs may see that pool's poll bits, and answers them like a deque policy with no trigger.
  if (traits_of(cfg.policy).runs_on == mechanism::wool_stack)
    sched = make_wool_scheduler(*this);
  else if (uses_fibers)
    sched = make_fiber_scheduler(*this, cfg.policy);
  else
    sched = make_deque_scheduler(*this, traits_of(cfg.policy));
  if (runs_on_caller) {
    start_trace();  // no worker lanes: the file's time base and metadata
    return;
  }
  try {
    if (beats_by_signal()) install_beat_handler();
    start_workers();
    if (beats_by_signal()) {
      for (auto& w : workers)
        if (w->beat_timer_error != 0) {
          // EAGAIN: the kernel counts each timer against the user's limit of queued signals (all
          // of the user's processes together): many pools at once, or a container's low limit,
          // reach it.  Say which limit, how to raise it, and which deliveries need no timer.
          const std::string limit = w->beat_timer_error == EAGAIN
                                        ? "; each worker's timer counts against the user's limit of queued signals, "
                                          "RLIMIT_SIGPENDING (ulimit -i): raise it, or "
                                        : "; ";
          throw std::system_error(w->beat_timer_error, std::generic_category(),
                                  "weft: heartbeat_delivery = signal: no timer for worker " + std::to_string(w->index) +
                                      " of " + std::to_string(workers.size()) + limit +
                                      "use heartbeat_delivery = thread or spare (WEFT_HEARTBEAT_DELIVERY), which need none");
        }
    } else if (heartbeat_bits != 0) {
      // Every worker's `hot` is set (start_workers waited for them): beats may start.
      next_beat_ns_.store(now_ns() + beat_period_ns_, std::memory_order_release);
      heartbeat_thread_ = std::thread([this] { heartbeat_main(); });
    }
  } catch (...) {
    // A thread could not be started (std::system_error: out of memory or of threads): stop and join
    // the ones that were, then let the error leave the pool's constructor (a std::thread still
    // joinable at destruction would call std::terminate).
    stop_threads();
    throw;
  }
}

// Every worker and its mechanism state exist before the first thread starts (a thief may pick any
// victim at once); the constructor returns when every thread has set up its hot state.
void runtime::start_workers() {
  workers.reserve(cfg.workers);
  for (unsigned i = 0; i < cfg.workers; ++i) {
    // max_depth is 0 under the fiber engine, whose joins use no task stack (config.cpp): the smallest.
    workers.push_back(std::make_unique<worker>(this, i, cfg.max_depth != 0 ? cfg.max_depth : min_max_depth));
    sched->attach(*workers.back());
  }
  start_trace();
  // Each worker counts as searching from before its thread starts (worker_main begins by searching;
  // its begin_search then finds it counted): a thread not yet scheduled is no busy worker to a loop
  // piece's check, which holds while every other worker runs a task (every_other_worker_busy).
  // Counted from its first instruction instead, it held every check of a 200-us loop on a 2-worker
  // pool whose second thread had not yet run (ASan on a loaded host, stop 64's CI rehearsal:
  // Adaptive.AShortReductionOfLongIterationsPollsAfterItsFirst).  Written before the threads
  // start, which orders these writes before each thread's first read of its own `searching`.
  for (auto& w : workers) w->searching = true;
  searching_.fetch_add(std::uint32_t(workers.size()), std::memory_order_seq_cst);
  std::latch started(cfg.workers);
  std::size_t launched = 0;
  try {
    for (auto& w : workers) {
      worker* wp = w.get();
      w->thread.start(cfg.stack_bytes, [this, wp, &started] { worker_thread(*wp, started); });
      ++launched;
    }
  } catch (...) {
    // The threads that did start count down on `started`, a local: wait for them before it goes.
    started.count_down(std::ptrdiff_t(cfg.workers - launched));
    started.wait();
    throw;
  }
  started.wait();
}

void runtime::worker_thread(worker& w, std::latch& started) {
  if (w.trace) w.trace->replace(activity::startup);
  hot_state& h = tls_hot;
  h.self = &w;
  h.exceptions_in_flight = &thread_eh_state()->uncaught;  // this thread's for good
  h.top = w.stack.begin();
  h.scan_base = nullptr;
  const std::uint32_t poll_bits = sched->initial_poll_bits(w);
  h.spawn_limit = spawn_limit_for(w, poll_bits);
  h.loops_run_as = traits_of(cfg.policy).loops;
  h.eager_deque = sched->eager_deque(w);
  h.eager_ledger = &w.ledger;
  w.hot = &h;
  h.poll.store(poll_bits, std::memory_order_relaxed);
  // Signal delivery: this thread's timer, made here so that it targets this thread; beats from now
  // until worker_main returns, except while it sleeps (sleep(), park_until_done).  The constructor
  // reads beat_timer_error after the latch.
  if (beats_by_signal()) {
    beat_signal_unblock();
    if (beat_timer_prepare())
      beat_timer_arm(w.beats_requested, cfg.heartbeat);
    else
      w.beat_timer_error = errno != 0 ? errno : EAGAIN;
  }
  started.count_down();
  worker_main(w);
  if (beats_by_signal()) beat_timer_disarm();  // no beat after this; the timer goes with the thread
  // The thread is no worker from here: its thread_local destructors, which run after this, may call
  // join or a loop, and must find the hot state of a thread outside every pool (loops_run_as too:
  // left at the policy's loop_frame, a loop there pushed a frame at `top`, null — a SIGSEGV under
  // the lazy policies and heartbeat, found by stop 46's lifecycle hunt).
  h.self = nullptr;
  h.top = nullptr;
  h.scan_base = nullptr;
  h.loops_run_as = loop_style::halving;
  h.spawn_limit = nullptr;
  h.eager_deque = nullptr;
  h.eager_ledger = nullptr;
  h.poll.store(poll_bit::external, std::memory_order_relaxed);
  // The slot's counts leave this thread's block, which ends with the thread (and with the native
  // stack it lies on, unmapped when the pool joins the thread), and `hot` no longer points there:
  // a stats() or reset_stats() made after it — from a thread_local destructor of another worker of
  // the pool, which runs while the pool is being destroyed — read the joined workers' unmapped
  // blocks and crashed (found by stop 55's multipool hunt), and one made from this thread's own
  // thread_local destructors counted the global pool's runs they make as this worker's.  Under
  // lend_mu_, which stats() and reset_stats() hold to read `hot` (as run_on_idle_slot switches it).
  {
    std::lock_guard lk(lend_mu_);
    w.retire_counts(h);
    w.hot = nullptr;
  }
  if (w.trace) w.trace->finish();
}

// The trace is written once every thread is joined: what they recorded happens before.  A
// destructor cannot throw: a file that cannot be written is reported on stderr.
runtime::~runtime() {
  stop_threads();
  unregister_heap_owner(*this);
  if (cfg.work_span != work_span_unit::off) {
    const work_span_report r = collect_work_span();
    if (r.jobs > 0) std::fputs(to_string(r).c_str(), stderr);
  }
  write_trace_at_end();  // a serial pool too: its file has the run's metadata and no worker lanes
}

void runtime::stop_threads() noexcept {
  {
    std::lock_guard lk(beat_mutex_);
    stopping_.store(true, std::memory_order_seq_cst);
  }
  beat_cv_.notify_all();
  wake_epoch_.fetch_add(1, std::memory_order_release);
  wake_epoch_.notify_all();
  awake_epoch_.fetch_add(1, std::memory_order_release);
  awake_epoch_.notify_all();
  if (heartbeat_thread_.joinable()) heartbeat_thread_.join();
  for (auto& w : workers)
    if (w->thread.joinable()) w->thread.join();
}

}  // namespace weft::detail
