// weft — workers, idling, sleeping and waking, root jobs, counters, the pool's public methods.
#include "runtime.hpp"

#include <sys/mman.h>
#include <sys/prctl.h>

#include <cstdio>
#include <cstdlib>
#include <latch>
#include <new>
#include <stdexcept>

#include "config_resolve.hpp"
#include "weft/pool.hpp"

namespace weft::detail {

constinit thread_local hot_state tls_hot __attribute__((tls_model("initial-exec")));

// ---------------------------------------------------------------------------------------------
// Task stacks

frame_stack::frame_stack(std::size_t capacity) : capacity_(capacity) {
  const std::size_t page = 4096;
  const std::size_t bytes = (capacity * sizeof(frame) + page - 1) / page * page;
  mapped_bytes_ = bytes + page;
  void* p = ::mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // The guard page: a join nested deeper than `capacity` faults here.  (Constructing the frames
  // touches the array once: capacity * 64 bytes per worker, at pool creation.)
  ::mprotect(static_cast<char*>(p) + bytes, page, PROT_NONE);
  frames_ = static_cast<frame*>(p);
  for (std::size_t i = 0; i < capacity; ++i) ::new (&frames_[i]) frame();
}

frame_stack::~frame_stack() {
  for (std::size_t i = 0; i < capacity_; ++i) frames_[i].~frame();
  ::munmap(frames_, mapped_bytes_);
}

worker::worker(runtime* owner, unsigned idx, std::size_t capacity)
    : rt(owner), index(idx), stack(capacity), base(stack.begin()), deque(capacity), bot(stack.begin()),
      rng(0x9E3779B97F4A7C15ull * (idx + 1)) {}

// ---------------------------------------------------------------------------------------------
// The runtime

runtime::runtime(const config& resolved)
    : cfg(resolved), inline_caller(resolved.policy == policy::serial),
      heartbeat_bits(resolved.policy == policy::heartbeat ? poll_bit::heartbeat : 0) {
  if (cfg.policy == policy::wool)
    sched = make_wool_scheduler(*this);
  else
    sched = make_deque_scheduler(*this, cfg.policy);
  if (inline_caller) return;
  workers.reserve(cfg.workers);
  for (unsigned i = 0; i < cfg.workers; ++i) workers.push_back(std::make_unique<worker>(this, i, stack_frames));
  std::latch started(cfg.workers);
  for (auto& w : workers) {
    worker* wp = w.get();
    w->thread = std::thread([this, wp, &started] {
      hot_state& h = tls_hot;
      h.self = wp;
      h.top = wp->stack.begin();
      h.loop_mode = loop_style_of(cfg.policy);
      wp->hot = &h;
      h.poll.store(sched->initial_poll_bits(*wp), std::memory_order_relaxed);
      started.count_down();
      worker_main(*wp);
      h.self = nullptr;
      h.top = nullptr;
      h.poll.store(poll_bit::external, std::memory_order_relaxed);
    });
  }
  started.wait();
  if (heartbeat_bits != 0) heartbeat_thread_ = std::thread([this] { heartbeat_main(); });
}

runtime::~runtime() {
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

// The heartbeat (HB §2): every N us, every worker's `heartbeat` poll bit is set; the worker promotes
// its oldest promotable frame at its next poll.  One timer thread serves the pool: a worker pays
// nothing when no beat is due (its poll is the same load as always) and one cache-line transfer
// when one is.  While every worker sleeps, the timer sleeps too.
void runtime::heartbeat_main() {
#ifdef PR_SET_TIMERSLACK
  ::prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);  // wake within ~1 us of the deadline, not 50 us
#endif
  const auto period = std::chrono::duration_cast<std::chrono::nanoseconds>(cfg.heartbeat);
  auto next = std::chrono::steady_clock::now() + period;
  while (!stopping_.load(std::memory_order_acquire)) {
    {
      std::unique_lock lk(beat_mutex_);
      if (beat_cv_.wait_until(lk, next, [&] { return stopping_.load(std::memory_order_acquire); })) break;
    }
    const auto now = std::chrono::steady_clock::now();
    next += period;
    if (next < now) next = now + period;  // beats missed while descheduled are not made up
    for (auto& w : workers) w->hot->poll.fetch_or(heartbeat_bits, std::memory_order_relaxed);
    const std::uint32_t e = awake_epoch_.load(std::memory_order_acquire);
    if (sleepers_.load(std::memory_order_seq_cst) == workers.size() && !stopping_.load(std::memory_order_acquire)) {
      awake_epoch_.wait(e, std::memory_order_acquire);
      next = std::chrono::steady_clock::now() + period;
    }
  }
}

namespace {

void bump(std::atomic<std::uint64_t>& c, std::uint64_t by = 1) noexcept {
  // Only the owning worker writes this counter: a load and a store, no locked instruction.
  c.store(c.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

constexpr std::uint64_t spin_before_sleep_ns = 1'000'000;  // SPEC §2: no CPU after about 1 ms

}  // namespace

void runtime::worker_main(worker& w) {
  // Idle time runs from here, or from the end of the last task, to the start of the next one
  // (execute_stolen / run_root close the interval): looking for work and sleeping both count.
  w.idle_since = now_ns();
  std::uint64_t last_work = w.idle_since;
  unsigned fails = 0;
  while (!stopping_.load(std::memory_order_acquire)) {
    if (find_work(w)) {
      w.idle_since = last_work = now_ns();
      fails = 0;
      continue;
    }
    ++fails;
    if (fails < 64) {
      cpu_relax();
      continue;
    }
    std::this_thread::yield();
    if ((fails & 15) == 0 && now_ns() - last_work > spin_before_sleep_ns) {
      sleep(w);
      last_work = now_ns();
      fails = 0;
    }
  }
  end_idle(w);
}

void runtime::end_idle(worker& w) noexcept {
  if (w.idle_since != 0) {
    bump(w.idle_ns, now_ns() - w.idle_since);
    w.idle_since = 0;
  }
}

bool runtime::find_work(worker& w) {
  if (injected_.load(std::memory_order_relaxed) != 0 && take_root(w)) return true;
  const std::size_t n = workers.size();
  if (n < 2) return false;
  w.rng ^= w.rng << 13;
  w.rng ^= w.rng >> 7;
  w.rng ^= w.rng << 17;
  std::size_t v = std::size_t(w.rng % (n - 1));
  if (v >= w.index) ++v;
  bump(w.steal_attempts);
  return sched->steal(w, *workers[v]);
}

bool runtime::take_root(worker& w) {
  root_job* job = nullptr;
  {
    std::lock_guard lk(inject_mu_);
    if (inject_.empty()) return false;
    job = inject_.front();
    inject_.pop_front();
    injected_.fetch_sub(1, std::memory_order_relaxed);
  }
  run_root(w, *job);
  return true;
}

void runtime::run_root(worker& w, root_job& job) {
  end_idle(w);
  frame* saved = w.base;
  w.base = w.hot->top;
  try {
    job.body(&job);
  } catch (...) {
    job.error = std::current_exception();
  }
  w.base = saved;
  // Notify under the lock: the waiter may destroy the job as soon as it sees `done`.
  std::lock_guard lk(job.m);
  job.done = true;
  job.done_hint.store(true, std::memory_order_release);
  job.cv.notify_one();
}

// Sleeping without losing a wake-up: a sleeper announces itself (sleepers++), then looks for work
// once more; a publisher makes work visible, then reads `sleepers` (notify_work).  Both pairs are
// store-then-load, ordered by seq_cst, so at least one side sees the other (Dekker).  The epoch is
// read before announcing, so a wake that lands between the check and the wait is not lost.
void runtime::sleep(worker& w) {
  (void)w;
  const std::uint32_t epoch = wake_epoch_.load(std::memory_order_acquire);
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  if (!work_visible() && !stopping_.load(std::memory_order_seq_cst))
    wake_epoch_.wait(epoch, std::memory_order_acquire);
  sleepers_.fetch_sub(1, std::memory_order_seq_cst);
  if (heartbeat_bits != 0) {
    awake_epoch_.fetch_add(1, std::memory_order_release);
    awake_epoch_.notify_all();
  }
}

bool runtime::work_visible() const {
  if (injected_.load(std::memory_order_seq_cst) != 0) return true;
  for (const auto& v : workers)
    if (sched->has_stealable(*v)) return true;
  return false;
}

void runtime::wake_one() noexcept {
  wake_epoch_.fetch_add(1, std::memory_order_release);
  wake_epoch_.notify_one();
}

void runtime::execute_stolen(worker& w, frame* t, task_fn fn) {
  end_idle(w);
  ++w.steals;
  if (heartbeat_bits != 0) w.hot->poll.fetch_and(~heartbeat_bits, std::memory_order_relaxed);
  frame* saved = w.base;
  w.base = w.hot->top;
  fn(t);  // the wrapper catches the task's exception into t->error
  w.base = saved;
  t->state.store(task_state::done, std::memory_order_release);
}

void runtime::wait_stolen(worker& w, frame* fr, unsigned thief) {
  // The joined slot stays reserved while we wait: its thief still writes DONE into it, and the
  // tasks we leapfrog push their frames above it.
  hot_state& h = *w.hot;
  frame* const joined_top = h.top;
  if (fr >= w.stack.begin() && fr < w.stack.end() && fr + 1 > h.top) h.top = fr + 1;
  w.blocked_on.store(int(thief), std::memory_order_relaxed);
  unsigned idle = 0;
  while (fr->state.load(std::memory_order_acquire) != task_state::done) {
    // Leapfrogging (WOOL §I.b): steal only from the thief, or from the worker it waits for, and so
    // on: their stealable work descends from `fr`, so the stack stays bounded.
    bool got = false;
    int v = int(thief);
    for (std::size_t hops = 0; v >= 0 && hops < workers.size() && !got; ++hops) {
      worker& victim = *workers[std::size_t(v)];
      if (&victim == &w) break;
      bump(w.steal_attempts);
      got = sched->steal(w, victim);
      if (!got) v = victim.blocked_on.load(std::memory_order_relaxed);
    }
    if (got) {
      ++w.leapfrogs;
      idle = 0;
    } else if (++idle < 128) {
      cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }
  w.blocked_on.store(-1, std::memory_order_relaxed);
  h.top = joined_top;
}

// ---------------------------------------------------------------------------------------------
// Root jobs

void runtime::submit(root_job& job) {
  if (inline_caller) {
    // The serial policy: the caller runs the job itself, on a task stack of its own.
    worker& ctx = serial_context_acquire();
    hot_state& h = tls_hot;
    const std::uint32_t saved_poll = h.poll.load(std::memory_order_relaxed);
    frame* saved_top = h.top;
    worker* saved_self = h.self;
    const std::uint64_t saved_joins = h.joins, saved_iters = h.loop_iterations;
    const std::uint8_t saved_loop_mode = h.loop_mode;
    h.self = &ctx;
    h.top = ctx.stack.begin();
    h.loop_mode = loop_style::lazy;
    h.poll.store(0, std::memory_order_relaxed);
    try {
      job.body(&job);
    } catch (...) {
      job.error = std::current_exception();
    }
    ctx.retired_joins += h.joins - saved_joins;
    ctx.retired_loop_iterations += h.loop_iterations - saved_iters;
    h.self = saved_self;
    h.top = saved_top;
    h.joins = saved_joins;
    h.loop_iterations = saved_iters;
    h.poll.fetch_or(saved_poll, std::memory_order_relaxed);  // keeps bits others set meanwhile
    h.loop_mode = saved_loop_mode;
    serial_context_release(ctx);
    std::lock_guard lk(job.m);
    job.done = true;
    job.done_hint.store(true, std::memory_order_release);
    return;
  }
  {
    std::lock_guard lk(inject_mu_);
    inject_.push_back(&job);
    injected_.fetch_add(1, std::memory_order_relaxed);
  }
  notify_work();
}

worker& runtime::serial_context_acquire() {
  std::lock_guard lk(serial_mu_);
  if (serial_free_.empty()) {
    serial_all_.push_back(std::make_unique<worker>(this, 0, stack_frames));
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

void wait_for(root_job& job) {
  for (int i = 0; i < 4000 && !job.done_hint.load(std::memory_order_acquire); ++i) cpu_relax();
  std::unique_lock lk(job.m);
  job.cv.wait(lk, [&] { return job.done; });
}

void submit(runtime* rt, root_job& job) { rt->submit(job); }

bool runs_in(const runtime* rt) noexcept {
  const worker* w = tls_hot.self;
  return w != nullptr && w->rt == rt;
}


// ---------------------------------------------------------------------------------------------
// Counters

weft::stats runtime::collect_stats() const {
  weft::stats s;
  auto one = [](const worker& w) {
    counters c;
    c.joins = w.retired_joins + (w.hot ? w.hot->joins : 0);
    c.loop_iterations = w.retired_loop_iterations + (w.hot ? w.hot->loop_iterations : 0);
    c.promotions = w.promotions;
    c.steals = w.steals;
    c.steal_attempts = w.steal_attempts.load(std::memory_order_relaxed);
    c.leapfrogs = w.leapfrogs;
    c.deque_checks = w.deque_checks;
    c.idle_ns = w.idle_ns.load(std::memory_order_relaxed);
    c.heap_peak_bytes = std::uint64_t(w.heap_peak);
    c.live_threads_peak = w.live_peak;
    return c;
  };
  if (inline_caller) {
    counters c;
    std::lock_guard lk(const_cast<std::mutex&>(serial_mu_));
    for (const auto& w : serial_all_) c += one(*w);
    s.workers.push_back(c);
  } else {
    for (const auto& w : workers) s.workers.push_back(one(*w));
  }
  for (const auto& c : s.workers) s.total += c;
  s.total.heap_peak_bytes = heap_peak.load(std::memory_order_relaxed);
  return s;
}

void runtime::reset_stats() {
  auto one = [](worker& w) {
    w.retired_joins = w.retired_loop_iterations = 0;
    if (w.hot) w.hot->joins = w.hot->loop_iterations = 0;
    w.promotions = w.steals = w.leapfrogs = w.deque_checks = 0;
    w.live_peak = w.live;
    w.steal_attempts.store(0, std::memory_order_relaxed);
    w.idle_ns.store(0, std::memory_order_relaxed);
    w.heap_peak = w.heap_now > 0 ? w.heap_now : 0;
  };
  if (inline_caller) {
    std::lock_guard lk(serial_mu_);
    for (auto& w : serial_all_) one(*w);
  } else {
    for (auto& w : workers) one(*w);
  }
  const std::int64_t now = heap_now.load(std::memory_order_relaxed);
  heap_peak.store(now > 0 ? std::uint64_t(now) : 0, std::memory_order_relaxed);
}

}  // namespace weft::detail

// -----------------------------------------------------------------------------------------------
// weft::pool

namespace weft {

pool::pool() : pool(weft::config{}) {}
pool::pool(const weft::config& cfg) : rt_(std::make_unique<detail::runtime>(detail::resolve(cfg))) {}
pool::~pool() = default;

unsigned pool::size() const noexcept { return rt_->cfg.workers; }
weft::policy pool::policy() const noexcept { return rt_->cfg.policy; }
const weft::config& pool::config() const noexcept { return rt_->cfg; }
weft::stats pool::stats() const { return rt_->collect_stats(); }
void pool::reset_stats() { rt_->reset_stats(); }

pool& pool::global() {
  static pool g;
  return g;
}

namespace detail {
runtime* global_runtime() { return pool::global().rt_.get(); }
}  // namespace detail

}  // namespace weft
