// weft — a typed spawn: `auto t = weft::spawn(f); ...; auto r = t.sync();` (SPEC §2).  Lace's and
// Wool's SPAWN and SYNC, Spice's fork and join: a join split in two.  The spawn is a join's push (the
// poll, the closure copied into the frame, the new top), the code up to sync() plays the join's first
// branch, and sync() is the join's end (the pop, the test that nobody promoted the frame, the task
// run inline).  The handle lives in the caller's frame and knows the task's type, so sync calls the
// task directly — where weft::scope, untyped, keeps a record per node and calls every task through a
// runner it finds in the frame: a recursion written with spawn costs what it costs written with join
// (docs/results/fine-grained.md, "A typed spawn").  Everything that is not that fast path is in
// detail/spawn_slow.hpp.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "detail/join.hpp"
#include "detail/spawn_slow.hpp"

namespace weft {

template <class F>
class spawned;

// Makes a copy of f latent work of this worker — the policy may make it stealable — and returns the
// handle that joins it.  Handles are synced youngest first, on the thread that spawned them and at
// the nesting level of their spawn (not from inside a join branch opened since), as the joins they
// are.  A sync out of that order, or on another thread, ends the process with a message saying so
// (nobody can join that frame safely: a thief may be running it) — checked alike where the spawn
// made no frame; a second sync throws std::logic_error.  sync returns by value, as a join does.
// On a thread
// that is no worker, and under adf, dfd and fifo, the task runs at sync(), on the thread that syncs
// (the serial order of a join: the code before sync first; detail::spawn_state::deferred says why
// not a fiber there); in the work/span mode a spawn is measured as a join.
template <class F>
[[nodiscard]] WEFT_INLINE spawned<std::decay_t<F>> spawn(F&& f) {
  return spawned<std::decay_t<F>>(std::forward<F>(f));
}

template <class F>
class [[nodiscard]] spawned {
  static_assert(std::is_invocable_v<F&>, "weft::spawn: the task must be callable with no arguments");
  static_assert(detail::result_movable<F>, WEFT_RESULT_MOVABLE_MESSAGE);
  using branch = detail::branch_t<F>;
  static constexpr bool in_frame = detail::branch_in_frame<F>::fits;
  using value_type = detail::ret_t<F>;

 public:
  // By value, as a join's results are: a task that returns a reference gives a copy of what it
  // refers to (a reference out of sync would be bound to the handle's temporary).
  using result_type = std::conditional_t<std::is_void_v<std::invoke_result_t<F&>>, void, value_type>;

  spawned(const spawned&) = delete;
  spawned& operator=(const spawned&) = delete;

  // Joins the task: runs it here unless a thief took it, else waits for the thief (finding other
  // work meanwhile).  Returns its result (nothing for a void task) or rethrows its exception.
  WEFT_INLINE result_type sync() {
    if constexpr (std::is_void_v<result_type>)
      join_task();
    else
      return join_task();
  }

  // A handle left unsynced is synced here, its result discarded and its exception thrown — unless an
  // exception thrown since the spawn is unwinding the stack (std::uncaught_exceptions() above its
  // count at the spawn): then the task is taken back unrun, or its thief waited for and what it made
  // dropped, as a join drops its second branch when its first throws (the exception in flight wins).
  // A handle made during an unwinding (in a destructor an exception calls) and destroyed at that
  // destructor's end is synced as any other: the serial elision runs its task.
  ~spawned() noexcept(false) {
    if (state_ != detail::spawn_state::synced) [[unlikely]]
      detail::spawn_abandoned<F>(std::exchange(state_, detail::spawn_state::synced), closure_arg(),
                                 uncaught_at_spawn_);
  }

 private:
  template <class G>
  friend spawned<std::decay_t<G>> spawn(G&&);

  // The spawn: the fast path of a join's push (detail/join.hpp, join_branches).  The slow path gets
  // a closure that fits the frame by value, for the reason join_slow does: were its address taken,
  // the compiler would keep the closure in memory on the fast path too.
  template <class G>
  WEFT_INLINE explicit spawned(G&& g) : f_(std::forward<G>(g)), holder_(in_frame ? nullptr : &f_) {
    detail::hot_state& h = detail::tls_hot;
    if (detail::poll_pending(h)) [[unlikely]] {
      uncaught_at_spawn_ = detail::exceptions_in_flight_now();  // any thread
      // Made in this block by join's slow_path_arg (such a closure is trivially copyable: the move
      // copies it, and the handle keeps its own).  Passed as the member itself, the closure stayed
      // in memory for the whole function, and gcc no longer turned the recursion's last call into a
      // loop (fib: 1.6× the time of the join form).
      if constexpr (in_frame)
        state_ = detail::spawn_slow<F>(detail::slow_path_arg(f_));
      else
        state_ = detail::spawn_slow_held<F>(&holder_);
      return;
    }
    uncaught_at_spawn_ = *h.exceptions_in_flight;  // a worker's: set with h.self
    detail::frame* fr = h.top;
    branch::store(fr, f_, holder_);
    detail::push_frame(h, fr, &branch::run);
    state_ = reinterpret_cast<std::uintptr_t>(fr + 1);
  }

  // The join's end: the frame is the top one (else the handle took the slow path at its spawn, or is
  // misused), popped; promoted or not (one load and a branch); the task inline.
  WEFT_INLINE value_type join_task() {
    detail::hot_state& h = detail::tls_hot;
    // The state is cleared first, once, before any call: then no exception leaves sync with the
    // handle still open (a sync out of order ends the process, in sync_aside), and the destructor's
    // test folds away on every path.  A handle that needs a cleanup after its last call is one gcc
    // does not compile as the serial recursion (detail/join.hpp, cannot_throw): cleared on each path
    // apart, the state was not known at the destructor, and fib ran 1.6× the join form's time.
    const std::uintptr_t s = std::exchange(state_, detail::spawn_state::synced);
    if (reinterpret_cast<std::uintptr_t>(h.top) != s) [[unlikely]]
      return detail::sync_aside<F>(s, closure_arg());  // no frame; or misuse
    detail::frame* fr = reinterpret_cast<detail::frame*>(s) - 1;
    h.top = fr;
    if (detail::must_reclaim(fr)) [[unlikely]] return detail::sync_promoted<F>(fr, closure_arg());
    // A closure in the frame is called as a copy: called as the member, its address (the handle's)
    // would reach the call before gcc inlines it, and the state it has just cleared would not be
    // known afterwards.
    detail::spawn_closure_arg<F> task = closure_arg();
    return detail::call(detail::closure_ref<F>(task));
  }

  // What the slow paths get of the closure: a copy of one that lives in the frame (a copy behaves the
  // same, branch_in_frame), the address of any other (the frame points at it already).
  WEFT_INLINE detail::spawn_closure_arg<F> closure_arg() noexcept {
    if constexpr (in_frame)
      return f_;
    else
      return &f_;
  }

  F f_;  // the owner's copy, run inline at sync; a thief runs the frame's (or, held, this one)
  [[no_unique_address]] typename branch::holder holder_;  // a closure not in the frame: its record
  // While the task's frame is open, the top just above it (sync compares it with the thread's top and
  // finds the frame one below: no address computed before the test); spawn_state::synced once
  // synced; or, when the spawn took no frame, a tagged value (detail::spawn_state; a top is 64-byte
  // aligned, and never equals one of those: a thread that is no worker has a null top).
  std::uintptr_t state_;
  // std::uncaught_exceptions() at the spawn: an exception unwinds the handle's scope exactly when
  // more are in flight at its destructor (one made in a destructor an exception calls is no such).
  unsigned int uncaught_at_spawn_;
};

}  // namespace weft
