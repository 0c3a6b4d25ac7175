// weft — the global pool (SPEC §2: join/parallel_*/scope called from a thread that is no worker run
// in it) and what fork() does to pools.
//
// The global pool is made on first use and never destroyed: a join from a static destructor (or an
// atexit handler, or a thread still running at exit) must find it alive, whatever the order of
// static destruction.  Its idle workers sleep on a futex, so leaving them at exit costs nothing.
//
// fork(): the child has only the thread that called fork.  The global pool's workers are not
// there, so the child forgets it (its memory is left as it is: destroying it would join threads
// that do not exist) and makes a new one on first use.  An explicit pool made before the fork is
// unusable in the child: its run() throws std::logic_error saying so (a serial pool, which runs on
// the caller, keeps working), and its destructor leaves it as the parent left it, as the global
// pool's is: its parts would wait for threads that are not there (the workers' joins, a condition
// variable with the timer thread as its waiter — pthread_cond_destroy waits for it — mutexes one
// of them held).  Its trace and work/span figures are the parent's to write.
//
// pthread_atfork holds the global pool's mutex, the signal handler's install lock (a pool's
// construction takes it alone, or inside the global mutex when it makes the global pool), the heap
// registry's, the serial contexts' (every serial pool's runs take it: runtime::serial_mu_) and the
// stack guards' table's across the fork (in that order: a pool's construction takes the first, the
// third and the last in it, a serial run's first context the last two; nothing takes the registry's
// with either of the last two), then the trace files' lock (taken alone, by write_trace_file), so
// the child never inherits one locked by a thread that is gone.  The scopes' error locks come last:
// a thread holding one takes nothing else and lets it go after a few stores.
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>

#include "beat_signal.hpp"
#include "pool_runtime.hpp"
#include "stack_guard.hpp"
#include "trace.hpp"
#include "weft/pool.hpp"

namespace weft {

namespace {

std::mutex global_mutex;
std::atomic<pool*> global_pool{nullptr};
std::atomic<std::uint64_t> fork_generation{0};

void before_fork() {
  global_mutex.lock();
  detail::lock_beat_handler_install();
  detail::lock_heap_registry();
  detail::lock_serial_contexts();
  detail::lock_guard_table();
  detail::lock_trace_files();
  detail::lock_scope_error_locks();
}
void unlock_after_fork() {
  detail::unlock_scope_error_locks();
  detail::unlock_trace_files();
  detail::unlock_guard_table();
  detail::unlock_serial_contexts();
  detail::unlock_heap_registry();
  detail::unlock_beat_handler_install();
  global_mutex.unlock();
}
void after_fork_in_parent() { unlock_after_fork(); }
// The global pool is never destroyed (see above), so its trace is written at exit; a use of it from
// a later static destructor is not in the file.
// The pool there at exit may trace where the one that registered this did not, or not where it did
// (a child of fork() makes its own): only one that traces writes.
void write_global_trace() {
  if (pool* p = global_pool.load(std::memory_order_acquire); p != nullptr && !p->config().trace_path.empty()) {
    try {
      p->write_trace();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
    }
  }
}

void print_global_work_span() {
  if (pool* p = global_pool.load(std::memory_order_acquire)) {
    const work_span_report r = p->work_span();
    if (r.jobs > 0) std::fputs(to_string(r).c_str(), stderr);
  }
}

// The global pools that children of fork() forgot, one per generation: reachable from here, so that
// a leak checker sees them as live, as kept_pools are (a child that exited after its parent had used
// the global pool was reported leaking it, and LeakSanitizer made its exit status 1: found by stop
// 47's seeing-inside hunt).  A fixed table, since the child's handler allocates nothing; past its end
// (forks nested 16 deep) a pool is left unreachable, a leak report and nothing else.
pool* forgotten_globals[16];
std::size_t forgotten_count = 0;

void after_fork_in_child() {
  if (pool* old = global_pool.load(std::memory_order_relaxed); old != nullptr && forgotten_count < std::size(forgotten_globals))
    forgotten_globals[forgotten_count++] = old;
  global_pool.store(nullptr, std::memory_order_relaxed);
  fork_generation.fetch_add(1, std::memory_order_relaxed);
  unlock_after_fork();  // locked by this very thread in before_fork
}

}  // namespace

pool& pool::global() {
  // Acquire: a pool published by another thread is seen fully constructed.
  if (pool* p = global_pool.load(std::memory_order_acquire)) return *p;
  std::lock_guard lk(global_mutex);
  pool* p = global_pool.load(std::memory_order_relaxed);
  if (p == nullptr) {
    p = new pool();  // deliberately never deleted (see above)
    global_pool.store(p, std::memory_order_release);
    // Each handler once per process, when a global pool first needs it: not only the first global
    // pool — a child of fork() makes its own from its own environment (before stop 47's
    // seeing-inside hunt, a child tracing or measuring where its parent's global pool did neither
    // wrote no trace and printed no table at exit).  The handlers read whichever global pool is
    // there at exit; a child inherits the parent's registrations with these flags.  Under
    // global_mutex.
    static bool trace_at_exit = false, work_span_at_exit = false;
    if (!trace_at_exit && !p->config().trace_path.empty()) trace_at_exit = std::atexit(write_global_trace) == 0;
    if (!work_span_at_exit && p->config().work_span != work_span_unit::off)
      work_span_at_exit = std::atexit(print_global_work_span) == 0;
  }
  return *p;
}

namespace detail {

runtime* global_runtime() { return pool::global().rt_.get(); }

void run_on_global_pool(void (*job)(void*), void* arg) {
  pool::global().run([job, arg] { job(arg); });
}

namespace {
// The pools kept (pool::~pool: made before a fork, or destroyed from inside one of their runs):
// reachable from here, so that a leak checker sees them as live.
struct kept_pool {
  std::unique_ptr<runtime> rt;
  kept_pool* next;
};
std::atomic<kept_pool*> kept_pools{nullptr};
}  // namespace

void keep_undestroyed(std::unique_ptr<runtime> rt) noexcept {
  auto* k = new (std::nothrow) kept_pool{std::move(rt), kept_pools.load(std::memory_order_relaxed)};
  if (k == nullptr) {
    (void)rt.release();  // no memory even for this: the runtime is left as it is, unreachable
    return;
  }
  // Relaxed: the list is never read, only kept.
  while (!kept_pools.compare_exchange_weak(k->next, k, std::memory_order_relaxed)) {
  }
}

std::uint64_t current_fork_generation() {
  static const bool registered = [] {
    if (::pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child) != 0)
      throw std::runtime_error("weft: pthread_atfork failed");
    return true;
  }();
  (void)registered;
  return fork_generation.load(std::memory_order_relaxed);
}

}  // namespace detail

}  // namespace weft
