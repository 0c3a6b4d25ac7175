// weft — SPAWN/SYNC style fork-join (SPEC §2).  A spawned task is latent work, like a join's second
// branch; sync() joins the spawned tasks, youngest first, running inline the ones nobody stole.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "detail/join.hpp"
#include "detail/slow_path.hpp"

namespace weft {

class scope {
 public:
  scope() noexcept;
  // Syncs.  If a task threw and sync() was not called, the exception leaves the destructor — unless
  // the scope is being destroyed by another exception, in which case the tasks' errors are dropped.
  ~scope() noexcept(false);
  scope(const scope&) = delete;
  scope& operator=(const scope&) = delete;

  // Spawns f() (a copy of the callable is kept until sync).  Spawned on the thread that made the
  // scope, at the scope's own nesting level, the task is latent work of this worker; spawned from
  // anywhere else (another thread, e.g. a task of this scope that a thief runs, or inside a join
  // branch opened after the scope), it runs at once — the serial elision — since its frame could
  // not outlive that branch.  On a thread that is no worker, tasks run in the global pool.  Errors
  // of tasks spawned from other threads come after those of the owner's spawns in sync's order.
  template <class F>
  void spawn(F&& f);

  // Waits for every spawned task; rethrows the exception of the earliest-spawned task that threw.
  void sync();

 private:
  struct record {
    record* prev = nullptr;
    detail::frame* fr = nullptr;   // its slot (worker mode)
    detail::root_job* job = nullptr;  // external mode: the job in the global pool
    std::size_t index = 0;         // spawn order, for the serial order of errors
    void (*run_inline)(record*) = nullptr;
    void (*destroy)(record*) = nullptr;
  };
  template <class F>
  struct typed_record;

  void* allocate(std::size_t bytes, std::size_t align);
  void note_error(std::size_t index, std::exception_ptr e) noexcept;
  void note_foreign_error(std::exception_ptr e) noexcept;  // from another thread: after all owner spawns
  void spawn_external(record* r);
  void run_now(record* r) noexcept;
  void finish(record* r) noexcept;

  detail::hot_state* owner_;
  detail::frame* expected_top_;
  record* last_ = nullptr;
  std::size_t spawned_ = 0;
  std::size_t error_index_ = 0;
  std::exception_ptr error_;
  std::atomic_flag error_lock_ = ATOMIC_FLAG_INIT;  // error_ is also written by other threads' spawns
  int uncaught_;
  // Records live in an inline buffer, then in heap chunks freed at sync.
  struct chunk;
  chunk* chunks_ = nullptr;
  std::size_t used_ = 0;
  alignas(std::max_align_t) unsigned char inline_buf_[512];
};

template <class F>
struct scope::typed_record : record {
  F fn;
  template <class A>
  explicit typed_record(A&& a) : fn(std::forward<A>(a)) {
    run_inline = [](record* r) { static_cast<typed_record*>(r)->fn(); };
    destroy = [](record* r) { static_cast<typed_record*>(r)->~typed_record(); };
  }
  // Runs on a thief.
  WEFT_TASK_FN static void run(detail::frame* fr) {
    auto* self = *std::launder(reinterpret_cast<typed_record**>(fr->payload));
    try {
      self->fn();
    } catch (...) {
      fr->error = std::current_exception();
    }
  }
};

template <class F>
void scope::spawn(F&& f) {
  using Fn = std::decay_t<F>;
  detail::hot_state& h = detail::tls_hot;
  if (owner_ != &h) {
    // Another thread (a thief running one of this scope's tasks, say): the scope's storage belongs
    // to its owner, so the task runs here and now, touching nothing but the error slot.
    try {
      f();
    } catch (...) {
      note_foreign_error(std::current_exception());
    }
    return;
  }
  auto* r = ::new (allocate(sizeof(typed_record<Fn>), alignof(typed_record<Fn>)))
      typed_record<Fn>(std::forward<F>(f));
  r->index = spawned_++;
  if (h.self == nullptr) return spawn_external(r);
  if (h.top != expected_top_ || h.top >= detail::spawn_limit(h)) return run_now(r);
  detail::frame* fr = h.top;
  r->fr = fr;
  r->prev = last_;
  last_ = r;
  ::new (fr->payload) typed_record<Fn>*(r);
  detail::push_frame(h, fr, &typed_record<Fn>::run);
  expected_top_ = h.top;
  if (h.poll.load(std::memory_order_relaxed)) [[unlikely]] detail::promote_at_poll(h, fr);
}

}  // namespace weft
