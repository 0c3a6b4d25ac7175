// weft — the pool: workers, a policy, counters (SPEC §2).
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "config.hpp"
#include "work_span.hpp"
#include "detail/join.hpp"
#include "detail/slow_path.hpp"

namespace weft {

class pool {
 public:
  pool();                              // workers and policy from the environment
  explicit pool(const config& cfg);    // throws std::invalid_argument on a bad setting
  ~pool();  // waits for the workers to stop; no run may be in flight (one from another thread: the process ends, saying so)
  pool(const pool&) = delete;
  pool& operator=(const pool&) = delete;

  // Runs f inside the pool and returns its result (the reference itself where f returns one; any
  // other result type must be move-constructible, a static_assert says so); blocks the caller.
  // Called from a worker of this
  // pool, f simply runs inline.  Several threads may call run at once.  An exception thrown by f,
  // or by any branch it forks, leaves run after every branch has finished.
  template <class F>
  std::invoke_result_t<F&> run(F&& f);

  unsigned size() const noexcept;
  weft::policy policy() const noexcept;
  const weft::config& config() const noexcept;  // as resolved: environment applied, defaults filled

  // Per-worker counters and their totals.  total.heap_peak_bytes is the pool's heap high-water mark
  // (exact under serial, adf, dfd, fifo and with one worker; elsewhere within (workers - 1) x 4 KiB below it:
  // each worker posts its count in 4 KiB steps, README); total.live_threads_peak the pool's simultaneous maximum of live threads (exact under
  // the fiber engine; elsewhere the sum of the workers' peaks, an upper bound: config.hpp),
  // total.fiber_stack_peak_bytes the fiber engine's stacks at their peak.  Read them between runs: counters being written by a run in
  // progress are read without synchronization.
  weft::stats stats() const;
  void reset_stats();

  // Writes the timeline trace to config().trace_path now (it is written anyway when the pool is
  // destroyed, and for the global pool at exit).  During a run it is a snapshot of what the workers
  // have recorded so far.  Throws std::logic_error when tracing is off, std::runtime_error when the
  // file cannot be written.
  void write_trace() const;

  // The work/span mode's figures so far: every job the pool has run since it was made, summed
  // (reset_stats() resets the counters, not these); unit `off` when the mode is off
  // (config.work_span; weft/work_span.hpp).  Read them between runs, like stats().  The pool prints them to stderr when
  // it is destroyed (the global pool: at exit).
  work_span_report work_span() const;

  // The pool used by join/parallel_*/scope called from a thread that is no worker: created on first
  // use from the environment, like Rayon's global pool.
  static pool& global();

 private:
  friend detail::runtime* detail::global_runtime();
  friend std::uint64_t detail::beats_requested_now(const pool&) noexcept;
  std::unique_ptr<detail::runtime> rt_;
};

namespace detail {

// A job's result, kept for the caller: a value, or for a job that returns a reference the address of
// what it refers to — run returns that reference, as f() gives it where run calls f inline (an
// std::optional of a reference is ill-formed: such a job failed to compile deep in <optional> until
// stop 46's results hunt).  A value is kept without its const, so that run can move it out.
template <class R>
using root_result_t = std::conditional_t<std::is_void_v<R>, unit,
                                         std::conditional_t<std::is_reference_v<R>, std::remove_reference_t<R>*, std::remove_cv_t<R>>>;

// Holds the job's result, made in place from the job's call: a prvalue initializes it directly
// (C++17's guaranteed elision, which ignores the prvalue's const), where std::optional::emplace
// would copy a `const T` it was handed (a job returning a const move-only value did not compile
// before stop 47).
template <class T>
struct root_result_slot {
  union {
    T value;
  };
  bool made = false;
  root_result_slot() noexcept {}
  root_result_slot(const root_result_slot&) = delete;
  root_result_slot& operator=(const root_result_slot&) = delete;
  ~root_result_slot() {
    if (made) value.~T();
  }
  template <class Make>
  void make(Make&& m) {
    ::new (static_cast<void*>(std::addressof(value))) T(std::forward<Make>(m)());
    made = true;
  }
};

template <class F>
struct typed_root_job : root_job {
  using R = std::invoke_result_t<F&>;
  F* f;
  root_result_slot<root_result_t<R>> result;
  explicit typed_root_job(F* fn) : f(fn) {
    body = [](root_job* j) {
      auto* self = static_cast<typed_root_job*>(j);
      if constexpr (std::is_void_v<R>) {
        (*self->f)();
        self->result.make([] { return unit{}; });
      } else if constexpr (std::is_reference_v<R>) {
        R r = (*self->f)();
        self->result.make([&] { return std::addressof(r); });
      } else {
        self->result.make(*self->f);
      }
    };
  }
};

bool runs_in(const runtime* rt) noexcept;  // is this thread a worker of rt?

// pool::global().run of job(arg), out of line: the loops' way into the global pool from a thread
// outside every pool (loops.hpp, parallel_for_off_fast_path).  A pointer and a function pointer,
// so that a loop call site instantiates no root job of its own (typed_root_job, pool::run's
// submit, wait and rethrow: ~1 KB of code per loop; stop 59's loopsize hunt); what the job
// returns travels through `arg`.  Once per loop entered from outside, never on a worker.
void run_on_global_pool(void (*job)(void*), void* arg);
// The same for a callable `f` of the caller's, called there as f().
template <class F>
void run_on_global_pool(F& f) {
  run_on_global_pool([](void* a) { (*static_cast<F*>(a))(); }, std::addressof(f));
}

template <class F, class G>
WEFT_NOINLINE std::pair<ret_t<F>, ret_t<G>> join_external(F f, G g) {
  return pool::global().run([&] { return weft::join(std::move(f), std::move(g)); });
}

}  // namespace detail

template <class F>
std::invoke_result_t<F&> pool::run(F&& f) {
  using R = std::invoke_result_t<F&>;
  static_assert(std::is_void_v<R> || std::is_reference_v<R> || std::is_move_constructible_v<std::remove_cv_t<R>>,
                "weft::pool::run: the job's result type must be move-constructible (it is made on a thread of "
                "the pool and moved to the caller): return a std::unique_ptr to it instead");
  // A job run inline pushes no frame: a scope spawn inside it runs at once, as from a join's branch
  // (left latent, it outlived the job: stop 56's levelmark hunt), and is measured so.
  if (detail::runs_in(rt_.get())) return detail::call_unforked(detail::tls_hot, f);
  detail::typed_root_job<std::remove_reference_t<F>> job(&f);
  detail::submit_and_wait(rt_.get(), job);
  if (job.error) std::rethrow_exception(job.error);
  if constexpr (std::is_reference_v<R>)
    return static_cast<R>(*job.result.value);
  else if constexpr (!std::is_void_v<R>)
    return std::move(job.result.value);
}

}  // namespace weft
