// weft — a join under the fiber engine (adf, dfd, fifo: NAR's thread schedulers, SPEC §5).  A join
// forks its first branch as a new thread, a fiber with a stack of its own (past the pool's fork
// limit, config::fiber_fork_limit, it runs both branches inline instead, and on a stack less than
// half free it moves, both branches, to a thread of its own: join_moved); the parent goes on
// with the second branch (once the scheduler gives it a worker again: under adf and dfd the child
// preempts it, NAR Fig 3.2 / Fig 6.4), then waits for the child, suspending its fiber, never the
// worker.  The fast path never comes here: the poll bit `fibers` sends every join of such a pool to
// join_slow, which calls join_fibered.  The scheduling itself is in src/sched_fibers.cpp.
#pragma once

#include <atomic>
#include <exception>
#include <new>
#include <optional>
#include <utility>

#include "call.hpp"
#include "frame.hpp"

namespace weft::detail {

// The child thread of a join, as the template sees it: what it runs, and whether it is done.  It
// lives on the parent's stack (in join_fibered's frame) until the parent has joined it.
struct fiber_child {
  void (*run)(fiber_child*) = nullptr;  // runs the branch; records its result or its error
  std::exception_ptr error;
  // The exception the parent was handling when it forked (null: none), set by fiber_fork: the
  // child runs its branch inside a handler of it, so that `throw;` and std::current_exception() in
  // the branch see what they see in the serial elision, where the branch is a call made inside the
  // parent's handler.  A new fiber's exception state is empty: `throw;` there called
  // std::terminate, under adf, dfd and fifo even on one worker (stop 48's exceptions hunt).
  std::exception_ptr handled;
  // 1 until the child's thread has terminated; set to 0 by the scheduler (under its lock, with
  // release: the branch's result is visible to a parent that reads 0 with acquire).
  std::atomic<unsigned> pending{1};
  void* waiter = nullptr;  // the parent's thread while it is blocked on this child (scheduler's lock)
  bool dummy = false;      // one of NAR's dummy threads (§5.3), forked by the quota, not by a join
  bool moved = false;      // runs a whole join moved off a stack running short (join_moved): no join itself
  bool counted = false;    // the first branch of a moved join, which counted when it moved
};

// What fiber_fork did with a join.
enum class fork_outcome : unsigned char {
  forked,      // the first branch is a thread of its own; the caller runs the second, then waits
  run_inline,  // nothing forked: the pool is at its fork limit; the caller runs both branches
  move_join,   // nothing forked: the caller's stack is less than half free; the join moves (join_moved)
};

// Forks `c` as a new thread under the pool's policy; returns `forked` on the parent's thread once
// the scheduler runs it again (possibly on another worker).  For a join's first branch it may fork
// nothing instead (sched_fibers.cpp, fiber_scheduler::placement): `move_join` when the caller's
// stack has less than half its size free, `run_inline` when the pool holds config::fiber_fork_limit
// live threads or more.  A dummy or `moved` child always forks.  Throws (nothing forked) when no
// stack could be mapped for the child.
fork_outcome fiber_fork(fiber_child& c);
// Returns once `c`'s thread has terminated, suspending the calling thread meanwhile.
void fiber_wait(fiber_child& c) noexcept;

template <class F>
struct fiber_branch : fiber_child {
  using result_type = ret_t<F>;
  F* f;
  std::optional<result_type> result;
  explicit fiber_branch(F* branch) noexcept : f(branch) {
    run = [](fiber_child* c) {
      auto* self = static_cast<fiber_branch*>(c);
      try {
        self->result.emplace(call(*self->f));
      } catch (...) {
        self->error = std::current_exception();
      }
    };
  }
};

// `counted`: the join counted already (in `joins`), before it moved (join_moved).
template <class F, class G>
WEFT_NOINLINE std::pair<ret_t<F>, ret_t<G>> join_fibered(F& f, G& g, bool counted = false);

// A join met on a stack less than half free runs, both branches, on a thread of its own, which starts
// on a fresh stack, and the caller waits for it.  Forking only the first branch there left the
// second, and all it nests, on the short stack: a chain nested through second branches overflowed
// it, 10^6 levels on the default 64 MiB stack, below the fork limit and past it alike (stop 56's
// forklimit hunt).  The moved thread runs the join as any thread does (it forks its first branch,
// or runs both inline past the limit); the join counted when it was made, here, as a join whose
// fork fails counts, so it counts nothing there.  Its error comes out here through an
// exception_ptr, as a forked branch's does.
template <class F, class G>
WEFT_NOINLINE std::pair<ret_t<F>, ret_t<G>> join_moved(F& f, G& g) {
  auto whole = [&f, &g] { return join_fibered(f, g, true); };
  fiber_branch<decltype(whole)> mover(&whole);
  mover.moved = true;
  fiber_fork(mover);
  fiber_wait(mover);
  if (mover.error) std::rethrow_exception(mover.error);
  return std::move(*mover.result);
}

// No rethrow inside a catch handler: the wait may resume this fiber on another worker, whose
// thread's caught-exception stack is not this one's; the exceptions travel as exception_ptr.  The
// first branch's exception comes first, as in the serial elision (there the second never ran).
template <class F, class G>
WEFT_NOINLINE std::pair<ret_t<F>, ret_t<G>> join_fibered(F& f, G& g, bool counted) {
  fiber_branch<F> child(&f);
  child.counted = counted;
  switch (fiber_fork(child)) {
    case fork_outcome::forked:
      break;
    case fork_outcome::run_inline:
      return {call(f), call(g)};  // in order: a braced list is evaluated left to right
    case fork_outcome::move_join:
      return join_moved(f, g);
  }
  // adf and dfd ran the child first: if it failed already, the second branch does not run, as in
  // the serial elision.
  if (child.pending.load(std::memory_order_acquire) == 0 && child.error) std::rethrow_exception(child.error);
  std::optional<ret_t<G>> second;
  std::exception_ptr second_error;
  try {
    second.emplace(call(g));
  } catch (...) {
    second_error = std::current_exception();
  }
  fiber_wait(child);
  if (child.error) std::rethrow_exception(child.error);
  if (second_error) std::rethrow_exception(second_error);
  return {std::move(*child.result), std::move(*second)};
}

}  // namespace weft::detail
