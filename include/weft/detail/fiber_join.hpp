// weft — a join under the fiber engine (adf, dfd, fifo: NAR's thread schedulers, SPEC §5).  A join
// forks its first branch as a new thread, a fiber with a stack of its own (past the pool's fork
// limit, config::fiber_fork_limit, it runs both branches inline instead); the parent goes on
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
};

// Forks `c` as a new thread under the pool's policy; returns true on the parent's thread once the
// scheduler runs it again (possibly on another worker).  Returns false, forking nothing, when the
// pool holds config::fiber_fork_limit live threads or more and the caller's stack still has half
// its size free: the join then runs its branches here, as its serial elision (sched_fibers.cpp,
// fiber_scheduler::joins_inline).  Throws (nothing forked) when no stack could be mapped for the
// child.
bool fiber_fork(fiber_child& c);
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

// No rethrow inside a catch handler: the wait may resume this fiber on another worker, whose
// thread's caught-exception stack is not this one's; the exceptions travel as exception_ptr.  The
// first branch's exception comes first, as in the serial elision (there the second never ran).
template <class F, class G>
WEFT_NOINLINE std::pair<ret_t<F>, ret_t<G>> join_fibered(F& f, G& g) {
  fiber_branch<F> child(&f);
  if (!fiber_fork(child)) return {call(f), call(g)};  // in order: a braced list is evaluated left to right
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
